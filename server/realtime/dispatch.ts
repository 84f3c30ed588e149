import type { Database } from '../db/index.js';
import { DRAIN_LIMIT, drain } from './capture.js';
import type { Change } from './capture.js';
import type { TableInfo } from './catalog.js';
import { deliverChanges } from './change-delivery.js';
import { Planner } from './dispatch-plan.js';
import type { Channel } from './channel.js';
import { MESSAGE_KIND } from './messages.js';
import { parseChange } from './payload.js';
import type { ParsedChange } from './payload.js';
import { TableBindings } from './table-bindings.js';

/** Delivers captured changes to the bindings that match them, under each subscriber's RLS. */
export interface Dispatcher {
  /** Starts delivering changes of the channel's bindings. */
  add(channel: Channel): void;
  /** Stops delivering to the channel. */
  remove(channel: Channel): void;
  /** The channel's claims or access changed: its bindings are planned again from the next tick. */
  refresh(channel: Channel): void;
  /** Called on NOTIFY: drains and delivers, coalescing wake-ups that come while a tick runs (drains start at most every DRAIN_GAP_MS). */
  wake(): void;
  /** Resolves when no tick is running. */
  idle(): Promise<void>;
}

/**
 * Least time between the starts of two drains while changes keep coming: a change that finds
 * the dispatcher idle is drained at once, and under a stream of changes (heartbeats of a
 * thousand players, 200 a second) each drain takes those of this long together, one query and
 * one pass over the subscribers for several changes instead of one each.
 */
export const DRAIN_GAP_MS = 20;

/** A drain's changes sorted out: those of tables with bindings parsed (with their positions in the drain), and the realtime.messages records. */
interface Sorted {
  parsed: ParsedChange[];
  positions: number[];
  messages: string[];
}

/**
 * Sorts a drain's `changes`; changes of a table `tableOf` does not know (no binding on it) are
 * dropped, and so are those `admit` refuses (their writer's budget is spent).
 */
function sortDrained(changes: Change[], tableOf: (oid: number) => TableInfo | undefined, admit: (change: Change) => boolean): Sorted {
  const sorted: Sorted = { parsed: [], positions: [], messages: [] };
  changes.forEach((change, position) => {
    if (change.kind === MESSAGE_KIND) {
      sorted.messages.push(change.record!);
      return;
    }
    const table = tableOf(change.rel);
    if (!table || !admit(change)) return;
    sorted.parsed.push(parseChange(change, table));
    sorted.positions.push(position);
  });
  return sorted;
}

/**
 * Creates the dispatcher; `onError` hears failed ticks, which are then retried on the next wake.
 * `onMessages` is handed the records of the realtime.messages inserts of each drain, in commit
 * order, after that drain's postgres_changes. `admit` is asked once for each change some binding
 * follows (server/realtime/change-senders.ts); a change it refuses is delivered to nobody.
 */
export function createDispatcher(
  db: Database,
  onError: (error: unknown) => void,
  onMessages: (records: string[]) => void,
  admit: (change: Change) => boolean,
): Dispatcher {
  const byTable = new Map<number, TableBindings>();
  const planner = new Planner(byTable);
  let running: Promise<void> | null = null;
  let again = false;

  function tableOf(oid: number): TableInfo | undefined {
    const subs = byTable.get(oid);
    if (!subs) return undefined;
    for (const sub of subs.all) return sub.table;
    return undefined;
  }

  async function tick(): Promise<void> {
    for (let first = true; first || again; first = false) {
      const began = performance.now();
      again = false;
      const { checks, of } = planner.plan();
      const drained = await drain(db, checks);
      if (drained.changes.length === DRAIN_LIMIT) again = true;
      const { parsed, positions, messages } = sortDrained(drained.changes, tableOf, admit);
      const readable = (check: number, ci: number, old: boolean) =>
        !drained.failed.has(check) && (old ? drained.oldVisible : drained.visible)[check]!.has(positions[ci]!);
      if (parsed.length > 0) deliverChanges(byTable, parsed, of, readable);
      if (messages.length > 0) onMessages(messages);
      const rest = began + DRAIN_GAP_MS - performance.now();
      if (again && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  }

  return {
    add(channel: Channel) {
      planner.invalidate();
      for (const binding of channel.bindings) {
        let subs = byTable.get(binding.table.oid);
        if (!subs) byTable.set(binding.table.oid, (subs = new TableBindings()));
        subs.add(binding);
      }
    },
    remove(channel: Channel) {
      planner.invalidate();
      for (const binding of channel.bindings) {
        const subs = byTable.get(binding.table.oid);
        if (!subs) continue;
        subs.delete(binding);
        if (subs.size === 0) byTable.delete(binding.table.oid);
      }
    },
    refresh() {
      planner.invalidate();
    },
    wake() {
      if (running) {
        again = true;
        return;
      }
      running = tick()
        .catch(onError)
        .finally(() => {
          running = null;
        });
    },
    idle: () => running ?? Promise.resolve(),
  };
}
