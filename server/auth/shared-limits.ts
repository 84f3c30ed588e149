import { budgetKey, type BudgetStore } from '../cluster/budget-store.js';
import { createRateLimiter, createTokenBucketLimiter, type RateLimiter } from './rate-limit.js';

/**
 * A fixed window in Redis: ARGV[1] attempts per ARGV[2] ms, the window starting at the first
 * attempt and kept as the key's expiry. Answers 0 when the attempt counts, else the ms left.
 */
const WINDOW = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return math.max(1, redis.call('PTTL', KEYS[1])) end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/**
 * A token bucket in Redis, on Redis's clock: ARGV[1] tokens a ms, at most ARGV[2]; kept until it
 * would be full again. Answers 0 when a token is taken, else the ms until one is there.
 */
const BUCKET = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local perMs, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = math.min(burst, (tonumber(held[1]) or burst) + (now - (tonumber(held[2]) or now)) * perMs)
local wait = 0
if tokens < 1 then wait = math.ceil((1 - tokens) / perMs) else tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / perMs) + 1)
return wait`;

/** Seconds of `Retry-After` for a wait of `ms` (0: allowed). */
const retrySeconds = (ms: number) => (ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0);

/**
 * A limiter counted in `store` over the whole cluster, one Redis round trip an attempt; while
 * Redis cannot answer, `local` (this node's own count) answers instead.
 */
function sharedLimiter(store: BudgetStore, name: string, script: string, args: number[], local: RateLimiter): RateLimiter {
  return {
    async take(key) {
      const waitMs = await store.run(script, [budgetKey(name, key)], args);
      return typeof waitMs === 'number' ? retrySeconds(waitMs) : local.take(key);
    },
  };
}

/**
 * `limit` attempts per key in each window of `windowMs` (see createRateLimiter), over the
 * cluster when `store` is given: exact while Redis answers.
 */
export function windowLimiter(store: BudgetStore | null, name: string, limit: number, windowMs: number): RateLimiter {
  const local = createRateLimiter(limit, windowMs);
  return store ? sharedLimiter(store, name, WINDOW, [limit, windowMs], local) : local;
}

/**
 * `perWindow` attempts per key per `windowMs`, `burst` at once (see createTokenBucketLimiter),
 * over the cluster when `store` is given: exact while Redis answers.
 */
export function bucketLimiter(store: BudgetStore | null, name: string, perWindow: number, windowMs: number, burst: number): RateLimiter {
  const local = createTokenBucketLimiter(perWindow, windowMs, burst);
  return store ? sharedLimiter(store, name, BUCKET, [perWindow / windowMs, burst], local) : local;
}
