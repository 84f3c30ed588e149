/**
 * Attempts counted per key (an IP address, a wallet): a refusal costs no database work. The
 * limiters here keep their counts in memory, bounded by the keys seen within one window;
 * shared-limits.ts keeps them in the cluster's Redis.
 */
export interface RateLimiter {
  /**
   * Counts one attempt for `key` at `now` (ms; in-memory limiters only). Returns 0 when it is
   * allowed, otherwise the seconds until it would be (the `Retry-After` value).
   */
  take(key: string, now?: number): number | Promise<number>;
}

interface Window {
  startedAt: number;
  count: number;
}

/** Fixed windows: allows `limit` attempts per key in each window of `windowMs`, from the key's first attempt in it. */
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

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per key, as GoTrue's limiters (tollbooth) work: `perWindow` attempts per
 * `windowMs` on average, at most `burst` at once. A key whose bucket is full again is forgotten
 * at the next sweep, so memory is bounded by the keys active within one refill of the burst.
 */
export function createTokenBucketLimiter(perWindow: number, windowMs: number, burst: number): RateLimiter {
  const perMs = perWindow / windowMs;
  const refillMs = burst / perMs;
  const buckets = new Map<string, Bucket>();
  let sweptAt = 0;

  function level(bucket: Bucket, now: number): number {
    return Math.min(burst, bucket.tokens + (now - bucket.at) * perMs);
  }

  function sweep(now: number): void {
    if (now - sweptAt < refillMs) return;
    sweptAt = now;
    for (const [key, bucket] of buckets) if (level(bucket, now) >= burst) buckets.delete(key);
  }

  return {
    take(key, now = Date.now()) {
      sweep(now);
      const bucket = buckets.get(key) ?? { tokens: burst, at: now };
      bucket.tokens = level(bucket, now);
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens < 1) return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
      bucket.tokens -= 1;
      return 0;
    },
  };
}
