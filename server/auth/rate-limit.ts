/**
 * Fixed-window counters per key (an IP address, a wallet), kept in memory: a refusal costs
 * no database work. Memory is bounded by the keys seen within one window.
 */
export interface RateLimiter {
  /**
   * Counts one attempt for `key` at `now` (ms). Returns 0 when it is allowed, otherwise the
   * seconds until the window ends (the `Retry-After` value).
   */
  take(key: string, now?: number): number;
}

interface Window {
  startedAt: number;
  count: number;
}

/** Allows `limit` attempts per key in each window of `windowMs`. */
export function createRateLimiter(limit: number, windowMs: number): RateLimiter {
  const windows = new Map<string, Window>();
  let sweptAt = 0;

  function sweep(now: number): void {
    if (now - sweptAt < windowMs) return;
    sweptAt = now;
    for (const [key, window] of windows) if (now - window.startedAt >= windowMs) windows.delete(key);
  }

  return {
    take(key, now = Date.now()) {
      sweep(now);
      let window = windows.get(key);
      if (!window || now - window.startedAt >= windowMs) {
        window = { startedAt: now, count: 0 };
        windows.set(key, window);
      }
      if (window.count >= limit) return Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000));
      window.count++;
      return 0;
    },
  };
}
