/**
 * One drain lane: a queue in the database (realtime.changes for postgres_changes,
 * realtime.broadcasts for database broadcasts) drained by its own loop, woken by its own NOTIFY,
 * so a backlog in one lane never holds up the other.
 */
export interface Lane {
  /** Called on NOTIFY: drains, coalescing wake-ups that come while a drain runs (drains start at most every DRAIN_GAP_MS). */
  wake(): void;
  /** Resolves when no drain is running. */
  idle(): Promise<void>;
}

/**
 * Least time between the starts of two drains of one lane while rows keep coming: a row that
 * finds the lane idle is drained at once, and under a stream of them (heartbeats of a thousand
 * players, 200 a second) each drain takes those of this long together, one query and one pass
 * over the subscribers for several rows instead of one each.
 */
export const DRAIN_GAP_MS = 20;

/**
 * Creates a lane around `drainOnce`, which drains and delivers once and resolves to whether it
 * left rows behind (it took as many as it may). A failed drain is handed to `onError` and tried
 * again on the next wake.
 */
export function createLane(drainOnce: () => Promise<boolean>, onError: (error: unknown) => void): Lane {
  let running: Promise<void> | null = null;
  let again = false;

  async function run(): Promise<void> {
    for (let first = true; first || again; first = false) {
      const began = performance.now();
      again = false;
      if (await drainOnce()) again = true;
      const rest = began + DRAIN_GAP_MS - performance.now();
      if (again && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  }

  return {
    wake() {
      if (running) {
        again = true;
        return;
      }
      running = run()
        .catch(onError)
        .finally(() => {
          running = null;
        });
    },
    idle: () => running ?? Promise.resolve(),
  };
}
