import { createSharedCounts, type SharedCounts } from '../cluster/shared-counts.js';
import { RestError } from './errors.js';

/**
 * How many REST requests of one caller are served at once and how many may wait for a turn.
 * A browser opens at most six connections to a host, so a player never waits here; a script
 * that keeps many costly reads in flight gets the database's time of four, not of the whole
 * pool, and the others' requests go on being served beside it (docs/rest-bounds.md). In a
 * cluster the four are counted over every node (they share one database); the waiting ones per
 * node (they hold only that node's memory).
 */
export const CALLER_BOUNDS = Object.freeze({ running: 4, waiting: 64 });

/** How often the first waiting request of a caller asks again for a turn another node may have given back. */
export const CLUSTER_TURN_POLL_MS = 20;

function tooManyInFlight(): RestError {
  return new RestError(
    429,
    'TS112',
    'Too many requests in flight',
    `${CALLER_BOUNDS.running} requests of this caller are running and ${CALLER_BOUNDS.waiting} waiting`,
    'Wait for answers before sending more requests',
    { 'Retry-After': '1' },
  );
}

/**
 * A gate that lets at most {@link CALLER_BOUNDS.running} requests of each caller through at
 * once (over the cluster when `running` is shared), queues up to {@link CALLER_BOUNDS.waiting}
 * more in arrival order, and refuses the rest with `429 TS112`. Callers without waiting requests
 * are forgotten, so it holds no more entries than there are requests in progress.
 */
export function createCallerGate(running: SharedCounts = createSharedCounts(null, 'rest-turns')) {
  const queues = new Map<string, Array<() => void>>();
  /** The callers whose waiting requests are being given turns, and whether a turn came back meanwhile. */
  const pumping = new Map<string, boolean>();

  /** Gives turns to the waiting requests of `caller` in arrival order while there are turns; false when one is left waiting. */
  async function serveWaiting(caller: string): Promise<boolean> {
    for (let queue = queues.get(caller); queue; queue = queues.get(caller)) {
      if (!(await running.add(caller, CALLER_BOUNDS.running))) return false;
      queue.shift()!();
      if (queue.length === 0) queues.delete(caller);
    }
    return true;
  }

  async function pump(caller: string): Promise<void> {
    if (pumping.has(caller)) return void pumping.set(caller, true);
    let served: boolean;
    do {
      pumping.set(caller, false);
      served = await serveWaiting(caller);
    } while (!served && pumping.get(caller));
    pumping.delete(caller);
    // Another node may give a turn back: ask again soon.
    if (!served && running.clustered) setTimeout(() => void pump(caller), CLUSTER_TURN_POLL_MS);
  }

  return {
    /** Waits for a turn of `caller`; the returned function ends the turn (call it exactly once). */
    async enter(caller: string): Promise<() => void> {
      if (queues.has(caller) || !(await running.add(caller, CALLER_BOUNDS.running))) {
        const queue = queues.get(caller) ?? [];
        if (queue.length >= CALLER_BOUNDS.waiting) throw tooManyInFlight();
        queues.set(caller, queue);
        await new Promise<void>((resolve) => {
          queue.push(resolve);
          void pump(caller);
        });
      }
      return () => {
        running.remove(caller);
        void pump(caller);
      };
    },
  };
}

/** A gate made by {@link createCallerGate}. */
export type CallerGate = ReturnType<typeof createCallerGate>;
