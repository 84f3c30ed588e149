import type { Binding } from './channel.js';
import { equalityCondition, equalityKey } from './filter.js';

/**
 * The postgres_changes bindings on one table, found by value. A binding whose filter requires a
 * text column to equal one of a few values (`region=in.(...)`, `room=eq.lobby`) is filed under
 * those values of that column; any other is asked about every change. A change then meets the
 * scanned bindings and those filed under its own values only: a thousand players each following
 * their own regions cost a change a few lookups, not a thousand filter checks.
 */
export class TableBindings {
  /** Every binding on the table, in the order they came. */
  readonly all = new Set<Binding>();
  /** Bindings without an equality condition. */
  private readonly scanned = new Set<Binding>();
  /** column -> value -> the bindings filed under it. */
  private readonly byValue = new Map<string, Map<string, Set<Binding>>>();

  get size(): number {
    return this.all.size;
  }

  add(binding: Binding): void {
    this.all.add(binding);
    const condition = binding.filter && equalityCondition(binding.filter);
    if (!condition) {
      this.scanned.add(binding);
      return;
    }
    let values = this.byValue.get(condition.column);
    if (!values) this.byValue.set(condition.column, (values = new Map()));
    for (const value of condition.values) {
      let filed = values.get(value);
      if (!filed) values.set(value, (filed = new Set()));
      filed.add(binding);
    }
  }

  delete(binding: Binding): void {
    if (!this.all.delete(binding)) return;
    const condition = binding.filter && equalityCondition(binding.filter);
    if (!condition) {
      this.scanned.delete(binding);
      return;
    }
    const values = this.byValue.get(condition.column)!;
    for (const value of condition.values) {
      const filed = values.get(value);
      if (!filed) continue;
      filed.delete(binding);
      if (filed.size === 0) values.delete(value);
    }
    if (values.size === 0) this.byValue.delete(condition.column);
  }

  /**
   * Each binding whose filter `row` may pass, once: every binding it does pass is among them
   * (the rest is for the caller's full check). A null row (none to filter) meets only the
   * scanned bindings, since a filter fails on a missing row.
   */
  *candidates(row: Record<string, unknown> | null): Generator<Binding> {
    yield* this.scanned;
    if (!row) return;
    for (const [column, values] of this.byValue) {
      const key = column in row ? equalityKey(row[column]) : null;
      const filed = key === null ? undefined : values.get(key);
      if (filed) yield* filed;
    }
  }
}
