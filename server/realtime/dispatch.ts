import type { Bus } from '../cluster/index.js';
import type { Database } from '../db/index.js';
import { DRAIN_LIMIT, DROPPED_KIND, checkChanges, drain } from './capture.js';
import type { Change, Drained } from './capture.js';
import type { TableInfo } from './catalog.js';
import { deliverChanges } from './change-delivery.js';
import { Planner } from './dispatch-plan.js';
import type { Plan } from './dispatch-plan.js';
import type { Channel } from './channel.js';
import { createLane } from './lane.js';
import type { Lane, Urgency } from './lane.js';
import { MAX_RELAYED_CHANGES_PENDING } from './limits.js';
import { parseChange } from './payload.js';
import type { ParsedChange } from './payload.js';
import { CHANGES_BUS_CHANNEL, LastDrain, judgedChanges, readableByDrainer, runDrain, sharedVerdicts } from './change-relay.js';
import type { JudgedChange, RelayedChanges } from './change-relay.js';
import { relayedChecks } from '../metrics.js';
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
  /** Called on NOTIFY while this node drains (drain-lease.ts): drains and delivers in the postgres_changes lane (lane.ts), as soon as `urgency` asks. */
  wake(urgency?: Urgency): void;
  /** Resolves when no tick, nor delivery of changes another node drained, is running. */
  idle(): Promise<void>;
}

/**
 * A drain's changes sorted out: those of tables with bindings here parsed (with their positions
 * in the drain), those to hand to the other nodes (`relayed`, on a node of a cluster), and the
 * changes not captured.
 */
interface Sorted {
  parsed: ParsedChange[];
  positions: number[];
  relayed: Change[];
  /** The position in the drain of each relayed change. */
  relayedPositions: number[];
  dropped: number;
}

/** How a drain's changes are sorted: whether they are relayed, which were in the last drain, and the writers' budgets. */
interface Sorting {
  tableOf: (oid: number) => TableInfo | undefined;
  admit: (change: Change) => boolean;
  relay: boolean;
  last: LastDrain;
}

/**
 * Sorts a drain's `changes`: a change of the last drain (drained again, see LastDrain) is left
 * out; one of a table no binding here follows is dropped unless relayed, and so is one `admit`
 * refuses (its writer's budget is spent), for every node. Markers of statements too large add up
 * in `dropped`.
 */
function sortDrained(changes: Change[], how: Sorting): Sorted {
  const sorted: Sorted = { parsed: [], positions: [], relayed: [], relayedPositions: [], dropped: 0 };
  changes.forEach((change, position) => {
    if (change.kind === DROPPED_KIND) {
      sorted.dropped += (JSON.parse(change.record!) as { dropped: number }).dropped;
      return;
    }
    if (how.last.has(change.id)) return;
    const table = how.tableOf(change.rel);
    if ((!table && !how.relay) || !how.admit(change)) return;
    if (how.relay) {
      sorted.relayed.push(change);
      sorted.relayedPositions.push(position);
    }
    if (!table) return;
    sorted.parsed.push(parseChange(change, table));
    sorted.positions.push(position);
  });
  return sorted;
}

/** What the dispatcher reports, and to whom it hands changes beyond this node. */
export interface DispatcherDeps {
  /** Hears failed ticks, which are then retried on the next wake. */
  onError: (error: unknown) => void;
  /** Hears how many changes of statements past MAX_CHANGES_PER_STATEMENT a drain found uncaptured. */
  onDropped: (count: number) => void;
  /**
   * Asked once for each drained change some binding may follow (server/realtime/change-senders.ts);
   * a change it refuses is delivered to nobody.
   */
  admit: (change: Change) => boolean;
  /** The bus: a drainer publishes what it drained there, and every other node delivers it (change-relay.ts). */
  bus: Bus;
  log: (message: string) => void;
}

/**
 * Creates the dispatcher. `subscribed` is told which tables have bindings, so only they are
 * captured. On a node of a cluster, the node holding the drain lease (drain-lease.ts) drains,
 * delivers to its bindings and publishes the admitted changes; the others deliver what they hear
 * to theirs, judged by the drainer's verdicts where they depend on no claims, and otherwise
 * after one visibility check round trip (realtime.check_changes) when a binding's verdict depends
 * on the row.
 */
export function createDispatcher(db: Database, subscribed: SubscribedTables, deps: DispatcherDeps): Dispatcher {
  const byTable = new Map<number, TableBindings>();
  const planner = new Planner(byTable);
  const last = new LastDrain();
  const sorting: Sorting = { tableOf, admit: deps.admit, relay: deps.bus.clustered, last };

  function tableOf(oid: number): TableInfo | undefined {
    const subs = byTable.get(oid);
    if (!subs) return undefined;
    for (const sub of subs.all) return sub.table;
    return undefined;
  }

  function deliver(sorted: Sorted, drained: Drained, of: Plan['of']): void {
    const { parsed, positions } = sorted;
    const readable = (check: number, ci: number, old: boolean) =>
      !drained.failed.has(check) && ((old ? drained.oldVisible : drained.visible).get(check)?.has(positions[ci]!) ?? false);
    if (parsed.length > 0) deliverChanges(byTable, parsed, of, readable);
  }

  async function tick(): Promise<boolean> {
    // Changes heard from an earlier drainer go out before this node's own drains.
    await relayed.idle();
    const { checks, of } = planner.plan();
    return runDrain(db, deps.bus, async (queue) => {
      const drained = await drain(queue, checks);
      const sorted = sortDrained(drained.changes, sorting);
      last.remember(drained.changes.map((change) => change.id));
      deliver(sorted, drained, of);
      if (sorted.relayed.length > 0) {
        const verdicts = sharedVerdicts(checks, drained, sorted.relayed, sorted.relayedPositions);
        deps.bus.publish(CHANGES_BUS_CHANNEL, { changes: sorted.relayed, verdicts } satisfies RelayedChanges);
      }
      if (sorted.dropped > 0) deps.onDropped(sorted.dropped);
      return drained.changes.length === DRAIN_LIMIT;
    });
  }

  const relayed = createRelayedChanges(db, { byTable, planner, last, deliver, tableOf }, deps);
  const lane = createLane(tick, deps.onError);
  return {
    add(channel: Channel) {
      planner.invalidate(channel);
      for (const binding of channel.bindings) {
        let subs = byTable.get(binding.table.oid);
        if (!subs) byTable.set(binding.table.oid, (subs = new TableBindings()));
        subs.add(binding);
      }
    },
    remove(channel: Channel) {
      planner.invalidate(channel);
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
    refresh(channel: Channel) {
      planner.invalidate(channel);
    },
    wake: (urgency) => lane.wake(urgency),
    idle: async () => {
      await lane.idle();
      await relayed.idle();
    },
  };
}

/** The dispatcher's state the delivery of relayed changes shares. */
interface RelayParts {
  byTable: Map<number, TableBindings>;
  planner: Planner;
  last: LastDrain;
  deliver: (sorted: Sorted, drained: Drained, of: Plan['of']) => void;
  tableOf: (oid: number) => TableInfo | undefined;
}

/**
 * Delivers the changes another node drained and published to this node's bindings, in the order
 * heard: those of tables no binding here follows are let go at once; the rest wait (at most
 * MAX_RELAYED_CHANGES_PENDING, past it dropped and logged) for a lane of their own. A check the
 * drainer's verdicts answer (change-relay.ts, SharedVerdict) costs nothing here; the others of
 * the tables changed run in one round trip.
 */
function createRelayedChanges(db: Database, parts: RelayParts, deps: DispatcherDeps): Lane {
  const pending: JudgedChange[] = [];
  const all = () => true;
  const noRepeats = new LastDrain();
  let overflow = 0;

  async function deliverPending(): Promise<boolean> {
    const entries = pending.splice(0, DRAIN_LIMIT);
    const changes = entries.map((entry) => entry.change);
    const { checks, of } = parts.planner.plan();
    const rels = new Set(changes.map((change) => change.rel));
    const byDrainer = new Map<number, Set<number>>();
    const asked = new Set<number>();
    checks.forEach((check, n) => {
      if (!rels.has(check.rel)) return;
      const visible = readableByDrainer(entries, check);
      if (visible) byDrainer.set(n, visible);
      else asked.add(check.rel);
    });
    const drained = asked.size > 0 ? await checkChanges(db, changes, checks, asked) : { changes, visible: new Map(), oldVisible: new Map(), failed: new Set<number>() };
    for (const [n, visible] of byDrainer) {
      drained.visible.set(n, visible);
      drained.failed.delete(n);
    }
    relayedChecks.inc({ answered_by: 'drainer' }, byDrainer.size);
    relayedChecks.inc({ answered_by: 'database' }, checks.filter((check, n) => asked.has(check.rel) && !byDrainer.has(n)).length);
    parts.deliver(sortDrained(changes, { tableOf: parts.tableOf, admit: all, relay: false, last: noRepeats }), drained, of);
    return pending.length > 0;
  }

  const lane = createLane(deliverPending, deps.onError);
  deps.bus.subscribe(CHANGES_BUS_CHANNEL, (message) => {
    const relayedMessage = message as RelayedChanges;
    for (const entry of judgedChanges(relayedMessage)) {
      if (parts.last.has(entry.change.id) || !parts.byTable.has(entry.change.rel)) continue;
      if (pending.length < MAX_RELAYED_CHANGES_PENDING) pending.push(entry);
      else overflow += 1;
    }
    parts.last.remember(relayedMessage.changes.map((change) => change.id));
    if (overflow > 0) {
      deps.log(`realtime: ${overflow} relayed row changes dropped: past ${MAX_RELAYED_CHANGES_PENDING} waiting for their check`);
      overflow = 0;
    }
    if (pending.length > 0) lane.wake();
  });
  return lane;
}
