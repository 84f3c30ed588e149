/**
 * What the drainer of a cluster hands to the other nodes (docs/cluster.md, "Row changes and
 * database broadcasts"): one bus channel per drain lane, one message per drain, in drain order.
 */
import type { Bus } from '../cluster/index.js';
import type { Database, Queryable } from '../db/index.js';
import type { Change } from './capture.js';

/** The bus channel of drained row changes: messages {@link RelayedChanges}. */
export const CHANGES_BUS_CHANNEL = 'realtime-changes';

/** The bus channel of drained database broadcasts: messages {@link RelayedBroadcasts}. */
export const BROADCASTS_BUS_CHANNEL = 'realtime-broadcasts';

/** The row changes of one drain that the drainer admitted (their writers' budgets allowed them), in commit order. */
export interface RelayedChanges {
  changes: Change[];
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
