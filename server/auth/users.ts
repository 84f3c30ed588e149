import { randomBytes, randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/index.js';
import { AuthError } from './errors.js';
import { recordRevoked } from './revocations.js';
import type { VerifiedMessage } from './web3.js';

/** A user as auth-js receives it (GoTrue's user object, the subset Web3 users have). */
export interface AuthUser {
  id: string;
  aud: string;
  role: string;
  email: string;
  phone: string;
  app_metadata: Record<string, unknown>;
  user_metadata: Record<string, unknown>;
  identities: Record<string, unknown>[];
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
  is_anonymous: boolean;
  /** When an email user's address was confirmed; absent for wallet users, as in GoTrue. */
  email_confirmed_at?: string;
  /** The same time under GoTrue's older name. */
  confirmed_at?: string;
}

/** A session row: the user it belongs to and its current refresh token. */
export interface SessionGrant {
  user: AuthUser;
  sessionId: string;
  refreshToken: string;
}

/** Lets a refresh token that was just rotated be used again briefly, as GoTrue does for racing tabs. */
const REUSE_INTERVAL_SECONDS = 10;

/** The longest a refresh waits for the other refreshes of its session (each holds its row briefly). */
const SESSION_LOCK_WAIT = '10s';

/** Longer than any refresh token this server issues (32 characters): unknown without a lookup. */
const MAX_REFRESH_TOKEN_LENGTH = 64;

const APP_METADATA = { provider: 'web3', providers: ['web3'] };

/**
 * Reads a user as GoTrue shows it. `email_confirmed_at` is read through `to_jsonb`, so a
 * database whose auth.users lacks the column (an older hosted-like schema) still serves wallet users.
 */
export async function loadUser(tx: Queryable, userId: string): Promise<AuthUser | null> {
  const { rows } = await tx.query<{ user: AuthUser; confirmed_at: string | null }>(
    `select json_build_object(
       'id', u.id, 'aud', u.aud, 'role', u.role, 'email', coalesce(u.email, ''), 'phone', '',
       'app_metadata', u.raw_app_meta_data, 'user_metadata', u.raw_user_meta_data,
       'identities', coalesce((select json_agg(json_build_object(
           'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id, 'identity_data', i.identity_data,
           'provider', i.provider, 'last_sign_in_at', i.last_sign_in_at,
           'created_at', i.created_at, 'updated_at', i.updated_at) order by i.created_at)
         from auth.identities i where i.user_id = u.id), '[]'),
       'created_at', u.created_at, 'updated_at', u.updated_at, 'last_sign_in_at', u.last_sign_in_at,
       'is_anonymous', u.is_anonymous) as "user",
       to_jsonb(u) -> 'email_confirmed_at' as confirmed_at
     from auth.users u where u.id = $1`,
    [userId],
  );
  const row = rows[0];
  if (!row) return null;
  return row.confirmed_at ? { ...row.user, email_confirmed_at: row.confirmed_at, confirmed_at: row.confirmed_at } : row.user;
}

/** Opens a session for `userId` with its first refresh token. */
export async function newSession(tx: Queryable, userId: string): Promise<{ sessionId: string; refreshToken: string }> {
  const sessionId = randomUUID();
  await tx.query('insert into auth.sessions (id, user_id) values ($1, $2)', [sessionId, userId]);
  return { sessionId, refreshToken: await newRefreshToken(tx, userId, sessionId) };
}

async function newRefreshToken(tx: Queryable, userId: string, sessionId: string): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  await tx.query('insert into auth.refresh_tokens (token, user_id, session_id) values ($1, $2, $3)', [token, userId, sessionId]);
  return token;
}

/**
 * Accepts a signed message once: records its digest until it would be refused anyway, and
 * throws `invalid_grant` if it was used before. Forgets the digests whose time has passed.
 */
async function useMessageOnce(tx: Queryable, message: VerifiedMessage): Promise<void> {
  await tx.query('delete from auth.web3_used_messages where usable_until <= now()');
  const { rows } = await tx.query(
    `insert into auth.web3_used_messages (digest, usable_until) values ($1, to_timestamp($2 / 1000.0))
     on conflict (digest) do nothing returning digest`,
    [message.digest, message.usableUntil],
  );
  if (rows.length === 0) throw new AuthError(400, 'invalid_grant', 'Signed Solana message has already been used');
}

/**
 * Finds or creates the user of a Solana wallet (identity `web3:solana:<address>` in
 * auth.identities, data copied into the user's metadata as GoTrue does), records the sign-in and
 * opens a session. A message already used is refused.
 */
export function signInWeb3(db: Database, message: VerifiedMessage): Promise<SessionGrant> {
  const { siws } = message;
  const providerId = `web3:solana:${siws.address}`;
  const identityData = {
    sub: providerId,
    custom_claims: {
      address: siws.address,
      chain: 'solana',
      network: siws.chainId ?? '',
      domain: siws.domain,
      statement: siws.statement,
    },
  };
  const userMetadata = { ...identityData, email_verified: false, phone_verified: false };
  return db.transaction(async (tx) => {
    await useMessageOnce(tx, message);
    const found = await tx.query<{ user_id: string }>(
      `select user_id from auth.identities where provider = 'web3' and provider_id = $1`,
      [providerId],
    );
    let userId = found.rows[0]?.user_id;
    if (userId) {
      await tx.query(
        `update auth.users set raw_user_meta_data = $2, last_sign_in_at = now(), updated_at = now() where id = $1`,
        [userId, JSON.stringify(userMetadata)],
      );
      await tx.query(
        `update auth.identities set identity_data = $2, last_sign_in_at = now(), updated_at = now()
         where provider = 'web3' and provider_id = $1`,
        [providerId, JSON.stringify(identityData)],
      );
    } else {
      userId = randomUUID();
      await tx.query(
        `insert into auth.users (id, raw_app_meta_data, raw_user_meta_data, last_sign_in_at) values ($1, $2, $3, now())`,
        [userId, JSON.stringify(APP_METADATA), JSON.stringify(userMetadata)],
      );
      await tx.query(
        `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at)
         values ($1, $2, $3, 'web3', now())`,
        [providerId, userId, JSON.stringify(identityData)],
      );
    }
    const session = await newSession(tx, userId);
    return { user: (await loadUser(tx, userId))!, ...session };
  });
}

/** What a refresh came to: a grant, an unknown token, or a reuse that ended the session. */
export type RefreshOutcome =
  | { kind: 'rotated'; grant: SessionGrant }
  | { kind: 'not_found' }
  | { kind: 'reused'; sessionId: string };

/**
 * Rotates a refresh token: the old one is revoked and a new one issued for the same session.
 * A token revoked up to 10 s ago (tabs racing to refresh, a reply that was lost) is answered
 * with the session's active token, never a new one, so a flood of one token mints one child. One
 * revoked earlier is a stolen copy, so its whole session ends (GoTrue's token-family revocation).
 * `admit` is called with the token's session before any write and may throw to refuse (the
 * per-session rate limit). The refreshes of one session run one at a time (its row is locked).
 */
export async function refreshSession(db: Database, refreshToken: string, admit: (sessionId: string) => Promise<void>): Promise<RefreshOutcome> {
  if (refreshToken.length > MAX_REFRESH_TOKEN_LENGTH) return { kind: 'not_found' };
  const found = await db.query<{ session_id: string }>('select session_id from auth.refresh_tokens where token = $1', [refreshToken]);
  const sessionId = found.rows[0]?.session_id;
  if (!sessionId) return { kind: 'not_found' };
  await admit(sessionId);
  return db.transaction(async (tx): Promise<RefreshOutcome> => {
    // Waiting for the lock is queueing, not a slow statement: `admit` lets a session's refreshes
    // in only a few at a time (REFRESHES_PER_SESSION), so the wait gets a budget of its own rather
    // than the server's 1 s, which a loaded machine can pass with ten refreshes queued.
    await tx.query(`set local statement_timeout = '${SESSION_LOCK_WAIT}'`);
    const session = await tx.query<{ user_id: string }>('select user_id from auth.sessions where id = $1 for update', [sessionId]);
    const userId = session.rows[0]?.user_id;
    // Read after the lock: a refresh that held it has committed its rotation.
    const { rows } = await tx.query<{ revoked: boolean; reused: boolean }>(
      `select revoked_at is not null as revoked, revoked_at <= now() - make_interval(secs => $2) as reused
       from auth.refresh_tokens where token = $1`,
      [refreshToken, REUSE_INTERVAL_SECONDS],
    );
    const token = rows[0];
    if (!userId || !token) return { kind: 'not_found' };
    if (token.reused) {
      await tx.query('delete from auth.sessions where id = $1', [sessionId]);
      await recordRevoked(tx, [sessionId]);
      return { kind: 'reused', sessionId };
    }
    const user = await loadUser(tx, userId);
    if (!user) return { kind: 'not_found' };
    if (token.revoked) {
      const active = await tx.query<{ token: string }>(
        'select token from auth.refresh_tokens where session_id = $1 and revoked_at is null order by created_at desc limit 1',
        [sessionId],
      );
      const child = active.rows[0]?.token;
      if (child) return { kind: 'rotated', grant: { user, sessionId, refreshToken: child } };
    }
    await tx.query('update auth.refresh_tokens set revoked_at = now() where session_id = $1 and revoked_at is null', [sessionId]);
    return { kind: 'rotated', grant: { user, sessionId, refreshToken: await newRefreshToken(tx, userId, sessionId) } };
  });
}

/** Reads a user by id. */
export function getUser(db: Database, userId: string): Promise<AuthUser | null> {
  return db.transaction((tx) => loadUser(tx, userId));
}

/**
 * Ends sessions: `global` all of the user's, `local` only `sessionId`, `others` all but it.
 * Records them as revoked in the same transaction and returns their ids.
 */
export function endSessions(db: Database, userId: string, sessionId: string, scope: string): Promise<string[]> {
  return db.transaction(async (tx) => {
    const which = scope === 'local' ? 'and id = $2' : scope === 'others' ? 'and id <> $2' : '';
    if (which && !sessionId) return [];
    const { rows } = await tx.query<{ id: string }>(
      `delete from auth.sessions where user_id = $1 ${which} returning id`,
      which ? [userId, sessionId] : [userId],
    );
    const ids = rows.map((row) => row.id);
    await recordRevoked(tx, ids);
    return ids;
  });
}
