import type { Database } from '../db/index.js';
import { DRAIN_LIMIT, DROPPED_KIND, drain } from './capture.js';
import type { Change } from './capture.js';
import type { TableInfo } from './catalog.js';
import { deliverChanges } from './change-delivery.js';
import { Planner } from './dispatch-plan.js';
import type { Channel } from './channel.js';
import { createLane } from './lane.js';
import { parseChange } from './payload.js';
import type { ParsedChange } from './payload.js';
import type { SubscribedTables } from './subscribed-tables.js';
import { TableBindings } from './table-bindings.js';

/** Delivers captured changes to the bindings that match them, under each subscriber's RLS. */
export interface Dispatcher {
  /**
   * Has the tables of the channel's bindings captured; resolves once they are. Called once
   * before {@link add}: {@link remove} ends it.
   */
  capture(channel: Channel): Promise<void>;
  /** Starts delivering changes of the channel's bindings. */
  add(channel: Channel): void;
  /** Stops delivering to the channel; its tables are captured no longer once no other binding follows them. */
  remove(channel: Channel): void;
  /** The channel's claims or access changed: its bindings are planned again from the next tick. */
  refresh(channel: Channel): void;
  /** Called on NOTIFY: drains and delivers in the postgres_changes lane (lane.ts). */
  wake(): void;
  /** Resolves when no tick is running. */
  idle(): Promise<void>;
}

/** A drain's changes sorted out: those of tables with bindings parsed (with their positions in the drain), and the changes not captured. */
interface Sorted {
  parsed: ParsedChange[];
  positions: number[];
  dropped: number;
}

/**
 * Sorts a drain's `changes`; changes of a table `tableOf` does not know (no binding on it) are
 * dropped, and so are those `admit` refuses (their writer's budget is spent). Markers of
 * statements too large add up in `dropped`.
 */
function sortDrained(changes: Change[], tableOf: (oid: number) => TableInfo | undefined, admit: (change: Change) => boolean): Sorted {
  const sorted: Sorted = { parsed: [], positions: [], dropped: 0 };
  changes.forEach((change, position) => {
    if (change.kind === DROPPED_KIND) {
      sorted.dropped += (JSON.parse(change.record!) as { dropped: number }).dropped;
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
 * `subscribed` is told which tables have bindings, so only they are captured. `onDropped` hears
 * how many changes of statements past MAX_CHANGES_PER_STATEMENT a drain found uncaptured.
 * `admit` is asked once for each change some binding follows (server/realtime/change-senders.ts);
 * a change it refuses is delivered to nobody.
 */
export function createDispatcher(
  db: Database,
  subscribed: SubscribedTables,
  onError: (error: unknown) => void,
  onDropped: (count: number) => void,
  admit: (change: Change) => boolean,
): Dispatcher {
  const byTable = new Map<number, TableBindings>();
  const planner = new Planner(byTable);

  function tableOf(oid: number): TableInfo | undefined {
    const subs = byTable.get(oid);
    if (!subs) return undefined;
    for (const sub of subs.all) return sub.table;
    return undefined;
  }

  async function tick(): Promise<boolean> {
    const { checks, of } = planner.plan();
    const drained = await drain(db, checks);
    const { parsed, positions, dropped } = sortDrained(drained.changes, tableOf, admit);
    const readable = (check: number, ci: number, old: boolean) =>
      !drained.failed.has(check) && (old ? drained.oldVisible : drained.visible)[check]!.has(positions[ci]!);
    if (parsed.length > 0) deliverChanges(byTable, parsed, of, readable);
    if (dropped > 0) onDropped(dropped);
    return drained.changes.length === DRAIN_LIMIT;
  }

  const lane = createLane(tick, onError);
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
        if (!subs?.all.has(binding)) continue;
        subs.delete(binding);
        subscribed.unfollow(binding.table.oid);
        if (subs.size === 0) byTable.delete(binding.table.oid);
      }
    },
    capture(channel: Channel) {
      const oids = channel.bindings.map((binding) => binding.table.oid);
      for (const oid of oids) subscribed.follow(oid);
      return subscribed.ready(oids);
    },
    refresh() {
      planner.invalidate();
    },
    wake: () => lane.wake(),
    idle: () => lane.idle(),
  };
}
