import type { Bus } from '../cluster/index.js';
import type { Claims, Database, Queryable } from '../db/index.js';
import { ACCESS_TOKEN_SECONDS, TokenError, type TokenKeys } from './keys.js';

/** GoTrue's message when a token's session has ended. */
export const SESSION_ENDED = 'Session from session_id claim in JWT does not exist';

/** The bus channel on which a node tells the others which sessions ended: `{ "ended": [session ids] }`. */
export const SESSIONS_ENDED_CHANNEL = 'sessions-ended';

/** Most session ids one bus message carries; a longer list (a ban of a wallet with many sessions) goes as several. */
export const ENDED_PER_MESSAGE = 500;

/**
 * Sessions that ended (sign-out, refresh-token reuse, a ban) while access tokens of theirs may
 * still be unexpired. Kept in memory for a cheap check on every request and in
 * `auth.revoked_sessions` so that a restart remembers them; an entry lives as long as an
 * access token can (no token of an ended session is issued after it ended). The node that ends
 * a session tells the others on the bus; a node back on the bus after losing it re-reads the
 * table, so a session ended meanwhile is ended there too.
 */
export interface Revocations {
  /** Whether `sessionId` has ended. */
  has(sessionId: string): boolean;
  /** Adds the sessions this node ended (already written by {@link recordRevoked}), tells the listeners and the other nodes. */
  add(sessionIds: readonly string[]): void;
  /** Calls `listener` once for each session that ends from now on, on this node or another. */
  onRevoked(listener: (sessionId: string) => void): void;
}

const LIFETIME_MS = ACCESS_TOKEN_SECONDS * 1000;
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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

/** The session ids of a bus message, or none when it is not `{ ended: [ids] }`. */
function endedIn(message: unknown): string[] {
  const ended = (message as { ended?: unknown } | null)?.ended;
  if (!Array.isArray(ended)) return [];
  return ended.slice(0, ENDED_PER_MESSAGE).filter((id): id is string => typeof id === 'string' && SESSION_ID.test(id));
}

/** The ended sessions still within a token lifetime, with when each may be forgotten (ms epoch). */
async function readEnded(db: Database): Promise<[string, number][]> {
  const { rows } = await db.query<{ session_id: string; until: Date | string }>('select session_id, until from auth.revoked_sessions where until > now()');
  return rows.map((row) => [row.session_id, new Date(row.until).getTime()]);
}

/** The in-memory set of ended sessions: `end` tells the listeners of each session not already ended. */
function endedSessions() {
  const ended = new Map<string, number>();
  const listeners: ((sessionId: string) => void)[] = [];
  let sweptAt = Date.now();
  const has = (sessionId: string) => (ended.get(sessionId) ?? 0) > Date.now();
  const end = (entries: Iterable<readonly [string, number]>) => {
    const now = Date.now();
    if (now - sweptAt > LIFETIME_MS) {
      sweptAt = now;
      for (const [id, until] of ended) if (until <= now) ended.delete(id);
    }
    for (const [id, until] of entries) {
      const known = has(id);
      ended.set(id, Math.max(until, ended.get(id) ?? 0));
      if (!known) for (const listener of listeners) listener(id);
    }
  };
  return { has, end, listeners };
}

/**
 * Loads the sessions that ended within a token lifetime (and forgets older ones), and shares
 * the ones that end from now on with the other nodes on `bus`. `log` hears a failed re-read.
 */
export async function loadRevocations(db: Database, bus: Bus, log: (message: string) => void): Promise<Revocations> {
  await db.query('delete from auth.revoked_sessions where until <= now()');
  const sessions = endedSessions();
  bus.subscribe(SESSIONS_ENDED_CHANNEL, (message) => {
    const until = Date.now() + LIFETIME_MS;
    sessions.end(endedIn(message).map((id) => [id, until] as const));
  });
  sessions.end(await readEnded(db));
  bus.onReconnect(() => {
    readEnded(db).then(sessions.end, (error: unknown) => log(`sessions: re-reading the ended sessions failed: ${(error as Error).message}`));
  });
  return {
    has: sessions.has,
    add(sessionIds) {
      const until = Date.now() + LIFETIME_MS;
      sessions.end(sessionIds.map((id) => [id, until] as const));
      for (let i = 0; i < sessionIds.length; i += ENDED_PER_MESSAGE) {
        bus.publish(SESSIONS_ENDED_CHANNEL, { ended: sessionIds.slice(i, i + ENDED_PER_MESSAGE) });
      }
    },
    onRevoked(listener) {
      sessions.listeners.push(listener);
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
