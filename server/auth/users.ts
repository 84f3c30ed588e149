import { randomBytes, randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/index.js';
import type { SiwsMessage } from './siws.js';

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
}

/** A session row: the user it belongs to and its current refresh token. */
export interface SessionGrant {
  user: AuthUser;
  sessionId: string;
  refreshToken: string;
}

/** Lets a refresh token that was just rotated be used again briefly, as GoTrue does for racing tabs. */
const REUSE_INTERVAL_SECONDS = 10;

const APP_METADATA = { provider: 'web3', providers: ['web3'] };

async function loadUser(tx: Queryable, userId: string): Promise<AuthUser | null> {
  const { rows } = await tx.query<{ user: AuthUser }>(
    `select json_build_object(
       'id', u.id, 'aud', u.aud, 'role', u.role, 'email', coalesce(u.email, ''), 'phone', '',
       'app_metadata', u.raw_app_meta_data, 'user_metadata', u.raw_user_meta_data,
       'identities', coalesce((select json_agg(json_build_object(
           'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id, 'identity_data', i.identity_data,
           'provider', i.provider, 'last_sign_in_at', i.last_sign_in_at,
           'created_at', i.created_at, 'updated_at', i.updated_at) order by i.created_at)
         from auth.identities i where i.user_id = u.id), '[]'),
       'created_at', u.created_at, 'updated_at', u.updated_at, 'last_sign_in_at', u.last_sign_in_at,
       'is_anonymous', u.is_anonymous) as "user"
     from auth.users u where u.id = $1`,
    [userId],
  );
  return rows[0]?.user ?? null;
}

async function newSession(tx: Queryable, userId: string): Promise<{ sessionId: string; refreshToken: string }> {
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
 * Finds or creates the user of a Solana wallet (identity `web3:solana:<address>` in
 * auth.identities, data copied into the user's metadata as GoTrue does), records the sign-in and
 * opens a session.
 */
export function signInWeb3(db: Database, siws: SiwsMessage): Promise<SessionGrant> {
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

/**
 * Rotates a refresh token: the old one is revoked and a new one issued for the same session.
 * Returns null when the token is unknown, or was revoked more than a few seconds ago.
 */
export function refreshSession(db: Database, refreshToken: string): Promise<SessionGrant | null> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ user_id: string; session_id: string }>(
      `update auth.refresh_tokens set revoked_at = coalesce(revoked_at, now())
       where token = $1 and (revoked_at is null or revoked_at > now() - make_interval(secs => $2))
       returning user_id, session_id`,
      [refreshToken, REUSE_INTERVAL_SECONDS],
    );
    const row = rows[0];
    if (!row) return null;
    const user = await loadUser(tx, row.user_id);
    if (!user) return null;
    return { user, sessionId: row.session_id, refreshToken: await newRefreshToken(tx, row.user_id, row.session_id) };
  });
}

/** Reads a user by id. */
export function getUser(db: Database, userId: string): Promise<AuthUser | null> {
  return db.transaction((tx) => loadUser(tx, userId));
}

/** Ends sessions: `global` all of the user's, `local` only `sessionId`, `others` all but it. */
export async function endSessions(db: Database, userId: string, sessionId: string, scope: string): Promise<void> {
  if (scope === 'local' || scope === 'others') {
    const op = scope === 'local' ? '=' : '<>';
    await db.query(`delete from auth.sessions where user_id = $1 and id ${op} $2`, [userId, sessionId]);
  } else {
    await db.query('delete from auth.sessions where user_id = $1', [userId]);
  }
}
