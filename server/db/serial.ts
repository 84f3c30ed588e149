/**
 * A FIFO lock: `run(fn)` starts `fn` once every earlier `fn` has settled. PGlite serves one
 * connection, so requests must not interleave their statements.
 */
export function createSerialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    /** Runs `fn` after all work queued before it. */
    run<T>(fn: () => Promise<T>): Promise<T> {
      const result = tail.then(() => fn());
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
