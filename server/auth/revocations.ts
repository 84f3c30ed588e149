import type { Claims, Database, Queryable } from '../db/index.js';
import { ACCESS_TOKEN_SECONDS, TokenError, type TokenKeys } from './keys.js';

/** GoTrue's message when a token's session has ended. */
export const SESSION_ENDED = 'Session from session_id claim in JWT does not exist';

/**
 * Sessions that ended (sign-out, refresh-token reuse) while access tokens of theirs may still
 * be unexpired. Kept in memory for a cheap check on every request and in
 * `auth.revoked_sessions` so that a restart remembers them; an entry lives as long as an
 * access token can (no token of an ended session is issued after it ended).
 */
export interface Revocations {
  /** Whether `sessionId` has ended. */
  has(sessionId: string): boolean;
  /** Adds the ended sessions (already written by {@link recordRevoked}) and tells the listeners. */
  add(sessionIds: readonly string[]): void;
  /** Calls `listener` for each session that ends from now on. */
  onRevoked(listener: (sessionId: string) => void): void;
}

const LIFETIME_MS = ACCESS_TOKEN_SECONDS * 1000;

/** Writes ended sessions inside the transaction that ended them. */
export async function recordRevoked(tx: Queryable, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return;
  await tx.query(
    `insert into auth.revoked_sessions (session_id, until)
     select unnest($1::uuid[]), now() + make_interval(secs => $2)
     on conflict (session_id) do update set until = excluded.until`,
    [sessionIds, ACCESS_TOKEN_SECONDS],
  );
}

/** Loads the sessions that ended within a token lifetime (and forgets older ones). */
export async function loadRevocations(db: Database): Promise<Revocations> {
  await db.query('delete from auth.revoked_sessions where until <= now()');
  const { rows } = await db.query<{ session_id: string; until: Date | string }>('select session_id, until from auth.revoked_sessions');
  const ended = new Map<string, number>(rows.map((row) => [row.session_id, new Date(row.until).getTime()]));
  const listeners: ((sessionId: string) => void)[] = [];
  let sweptAt = Date.now();
  return {
    has(sessionId) {
      const until = ended.get(sessionId);
      return until !== undefined && until > Date.now();
    },
    add(sessionIds) {
      const now = Date.now();
      if (now - sweptAt > LIFETIME_MS) {
        sweptAt = now;
        for (const [id, until] of ended) if (until <= now) ended.delete(id);
      }
      for (const id of sessionIds) {
        ended.set(id, now + LIFETIME_MS);
        for (const listener of listeners) listener(id);
      }
    },
    onRevoked(listener) {
      listeners.push(listener);
    },
  };
}

/** `keys` whose `verify` also refuses tokens of ended sessions ({@link TokenError} `revoked`). */
export function refusingEnded(keys: TokenKeys, revocations: Revocations): TokenKeys {
  return {
    ...keys,
    async verify(token: string): Promise<Claims> {
      const claims = await keys.verify(token);
      if (typeof claims.session_id === 'string' && revocations.has(claims.session_id)) {
        throw new TokenError('revoked', SESSION_ENDED);
      }
      return claims;
    },
  };
}
