import type { RestError } from './errors.js';

/** Entries kept before expired ones are swept. */
const SWEEP_AT = 10_000;

/**
 * Remembers rate-limit refusals (429 with an `X-Retry-After-Ms` header) per caller, table and
 * method until the next token is due, so that a flooding wallet is refused again without a
 * database transaction. Within that window the database would refuse the same write too: the
 * bucket is empty and any write needs at least one token.
 */
export function createRefusalCache(now: () => number = Date.now) {
  const refusals = new Map<string, { until: number; error: RestError }>();
  return {
    /** The remembered refusal for `key`, if it is still in force. */
    find(key: string): RestError | undefined {
      const entry = refusals.get(key);
      if (!entry) return undefined;
      if (entry.until > now()) return entry.error;
      refusals.delete(key);
      return undefined;
    },
    /** Remembers `error` for `key` when it is a rate-limit refusal that says when to retry. */
    remember(key: string, error: RestError): void {
      const wait = Number(error.headers['X-Retry-After-Ms']);
      if (error.status !== 429 || !(wait > 0)) return;
      if (refusals.size >= SWEEP_AT) {
        const t = now();
        for (const [k, entry] of refusals) if (entry.until <= t) refusals.delete(k);
      }
      refusals.set(key, { until: now() + wait, error });
    },
  };
}

/** A cache made by {@link createRefusalCache}. */
export type RefusalCache = ReturnType<typeof createRefusalCache>;
