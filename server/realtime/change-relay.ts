/**
 * What the drainer of a cluster hands to the other nodes (docs/cluster.md, "Row changes and
 * database broadcasts"): one bus channel per drain lane, one message per drain, in drain order.
 */
import type { Bus } from '../cluster/index.js';
import type { Database, Queryable } from '../db/index.js';
import type { Change, Drained, VisibilityCheck } from './capture.js';

/** The bus channel of drained row changes: messages {@link RelayedChanges}. */
export const CHANGES_BUS_CHANNEL = 'realtime-changes';

/** The bus channel of drained database broadcasts: messages {@link RelayedBroadcasts}. */
export const BROADCASTS_BUS_CHANNEL = 'realtime-broadcasts';

/**
 * The row changes of one drain that the drainer admitted (their writers' budgets allowed them), in
 * commit order, with the drainer's verdicts of its checks that depend on no claims.
 */
export interface RelayedChanges {
  changes: Change[];
  verdicts?: SharedVerdict[];
}

/**
 * A drainer's verdict on the relayed changes of one table for every reader under one role whose
 * access is `exists` (VisibilityCheck.shareKey `key`): the positions, in the relayed changes, of
 * the inserts and updates it found readable. Such a verdict depends on no claims, so another
 * node judges its own readers of that key by it instead of asking the database again: with the
 * common tables, the database's work per drain does not grow with the number of nodes.
 */
export interface SharedVerdict {
  key: string;
  rel: number;
  visible: number[];
}

/**
 * The verdicts of the drainer's `checks` that depend on no claims, on the changes it relays:
 * `relayedPositions[i]` is the position in the drain of relayed change i.
 */
export function sharedVerdicts(checks: readonly VisibilityCheck[], drained: Drained, relayed: readonly Change[], relayedPositions: readonly number[]): SharedVerdict[] {
  const verdicts: SharedVerdict[] = [];
  checks.forEach((check, n) => {
    if (check.shareKey === null || !relayed.some((change) => change.rel === check.rel)) return;
    const readable = drained.failed.has(n) ? undefined : drained.visible.get(n);
    const visible: number[] = [];
    relayedPositions.forEach((position, i) => {
      if (readable?.has(position)) visible.push(i);
    });
    verdicts.push({ key: check.shareKey, rel: check.rel, visible });
  });
  return verdicts;
}

/** A relayed change with the drainer's verdicts on it, by share key (absent: not judged there). */
export interface JudgedChange {
  change: Change;
  judged: Map<string, boolean> | null;
}

/** The changes of one relayed message, each with the drainer's verdicts on it. */
export function judgedChanges(message: RelayedChanges): JudgedChange[] {
  const judged = message.changes.map((change): JudgedChange => ({ change, judged: null }));
  for (const verdict of message.verdicts ?? []) {
    const visible = new Set(verdict.visible);
    judged.forEach((entry, i) => {
      if (entry.change.rel !== verdict.rel) return;
      (entry.judged ??= new Map()).set(verdict.key, visible.has(i));
    });
  }
  return judged;
}

/**
 * The positions (in `entries`) of the changes `check` finds readable, by the drainer's verdicts;
 * null when the check reads the claims or some change of its table came without a verdict of its key.
 */
export function readableByDrainer(entries: readonly JudgedChange[], check: VisibilityCheck): Set<number> | null {
  if (check.shareKey === null) return null;
  const visible = new Set<number>();
  for (const [i, { change, judged }] of entries.entries()) {
    if (change.rel !== check.rel || change.kind === 'DELETE') continue;
    const verdict = judged?.get(check.shareKey);
    if (verdict === undefined) return null;
    if (verdict) visible.add(i);
  }
  return visible;
}

/** The database broadcasts of one drain (markers of statements past their bound left out), in commit order. */
export interface RelayedBroadcasts {
  ids: number[];
  records: string[];
}

/**
 * The queue ids of a lane's last drain, heard or drained. A drain whose transaction did not
 * commit (its drainer died, or the commit failed) leaves its rows in the queue, and the next
 * drain, on this node or another, takes them again: the rows of that one drain are the only ones
 * that can come twice, so they are the only ones remembered.
 */
export class LastDrain {
  private ids = new Set<number>();

  /** Whether `id` was in the last drain. */
  has(id: number): boolean {
    return this.ids.has(id);
  }

  /** Remembers `ids` as the last drain's. */
  remember(ids: Iterable<number>): void {
    this.ids = new Set(ids);
  }
}

/** Resolves after the bus has sent what was published in this turn (bus.ts sends a turn's messages at its end). */
function endOfTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs one drain `work` on `db`. On a node of a cluster it runs in a transaction that commits only
 * after `work` has delivered locally and published, and the bus has sent it: a drainer that dies
 * before the commit leaves the rows for the next drainer, so a change is never lost for the
 * nodes still running (and {@link LastDrain} keeps it from being delivered twice). While the bus
 * is down it drains nothing (resolves false): what it published would reach no other node, so the
 * rows wait in the queue until the bus is back. A node alone drains without a transaction, as it
 * delivers to no one else.
 */
export function runDrain(db: Database, bus: Pick<Bus, 'clustered' | 'status'>, work: (queue: Queryable) => Promise<boolean>): Promise<boolean> {
  if (!bus.clustered) return work(db);
  if (bus.status() !== 'ok') return Promise.resolve(false);
  return db.transaction(async (tx) => {
    const result = await work(tx);
    await endOfTurn();
    return result;
  });
}
