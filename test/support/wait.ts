/** Resolves after `ms` milliseconds: for a pause a test or benchmark means, not for waiting on a condition ({@link waitFor}). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How long {@link waitFor} waits and how often it checks. */
export interface WaitOptions {
  /** Milliseconds before giving up; 5000 unless given. */
  timeout?: number;
  /** Milliseconds between checks; 20 unless given. */
  interval?: number;
  /** What is awaited, named in the error when time runs out (a function is called only then). */
  message?: string | (() => string);
}

/** A value `check` may return that counts as "not yet". */
type NotYet = false | null | undefined | 0 | '';

/**
 * Calls `check` until it returns a truthy value (or a promise of one) and resolves with that value.
 * Rejects once `timeout` passes without one, naming `message`; an error `check` throws rejects at once.
 */
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitOptions = {}): Promise<Exclude<T, NotYet>> {
  const { timeout = 5000, interval = 20, message = 'a condition' } = options;
  const deadline = performance.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, NotYet>;
    if (performance.now() >= deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${typeof message === 'function' ? message() : message}`);
    }
    await sleep(interval);
  }
}
