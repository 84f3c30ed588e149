/**
 * Which node drains the change and database broadcast queues (docs/cluster.md, "Row changes and
 * database broadcasts"): a server alone always does; in a cluster, the one node holding the drain
 * lease, a session advisory lock on a connection of its own, which frees itself when that
 * connection drops (its node died). The others try to take it every LEASE_RETRY_MS and neither
 * listen nor drain meanwhile, so the database's work per change does not grow with the nodes.
 */
import type { Bus } from '../cluster/index.js';
import type { Database, SessionLock } from '../db/index.js';
import { realtimeDrainer } from '../metrics.js';
import { urgencyOf, type Urgency } from './lane.js';

/** The name of the advisory lock whose holder drains. */
export const DRAIN_LEASE = 'tessera_realtime_drain';

/** How often a node that does not drain tries to take the lease: a dead drainer is replaced within about this long. */
export const LEASE_RETRY_MS = 1000;

/** A queue a drainer listens to: its NOTIFY channel and the lane that drains it. */
export interface DrainedQueue {
  channel: string;
  lane: { wake(urgency?: Urgency): void };
}

/** Stops draining (and, in a cluster, gives the lease up for another node). */
export interface Draining {
  stop(): Promise<void>;
}

/** Listens to every queue's channel and drains each once (rows left by an earlier drainer); resolves to what stops listening. */
async function listenAll(db: Database, queues: DrainedQueue[]): Promise<() => Promise<void>> {
  const stops: (() => Promise<void>)[] = [];
  try {
    for (const queue of queues) stops.push(await db.listen(queue.channel, (payload) => queue.lane.wake(urgencyOf(payload))));
  } catch (error) {
    for (const stop of stops) await stop().catch(() => undefined);
    throw error;
  }
  for (const queue of queues) queue.lane.wake();
  return async () => {
    for (const stop of stops) await stop();
  };
}

/**
 * Starts draining `queues`: at once for a server alone, else whenever this node holds the drain
 * lease. Resolves once a server alone listens, or a node of a cluster made its first try.
 */
export async function startDraining(db: Database, bus: Bus, queues: DrainedQueue[], log: (message: string) => void): Promise<Draining> {
  if (!bus.clustered) {
    const unlisten = await listenAll(db, queues);
    return { stop: unlisten };
  }
  let lock: SessionLock | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  let stopped = false;

  const lose = async (held: SessionLock) => {
    if (lock !== held) return;
    lock = null;
    realtimeDrainer.set(0);
    const stop = unlisten;
    unlisten = null;
    await stop?.().catch((error: Error) => log(`realtime: unlisten failed: ${error.message}`));
    if (!stopped) log('realtime: this node lost the drain lease');
  };

  const attempt = async () => {
    if (lock || stopped) return;
    const taken = await db.tryLock(DRAIN_LEASE);
    if (!taken) return;
    if (stopped) return taken.release();
    lock = taken;
    try {
      unlisten = await listenAll(db, queues);
    } catch (error) {
      lock = null;
      await taken.release();
      throw error;
    }
    realtimeDrainer.set(1);
    log('realtime: this node drains the change queues of the cluster');
    void taken.lost.then(() => lose(taken));
  };

  let trying: Promise<void> = Promise.resolve();
  const retry = () => {
    trying = trying.then(attempt).catch((error: Error) => log(`realtime: taking the drain lease failed: ${error.message}`));
  };
  // A drainer drains nothing while the bus is down (change-relay.ts): what waited drains once it is back.
  bus.onReconnect(() => {
    if (lock) for (const queue of queues) queue.lane.wake();
  });
  const timer = setInterval(retry, LEASE_RETRY_MS);
  timer.unref();
  retry();
  await trying;
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await trying;
      const held = lock;
      if (!held) return;
      await lose(held);
      await held.release();
    },
  };
}
