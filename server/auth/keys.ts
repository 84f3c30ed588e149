import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { Claims, Queryable } from '../db/index.js';

/**
 * The signing secret's file name inside DATA_DIR, where servers before the cluster kept it: read
 * only on the first start on a database that holds no secret yet, to carry it over.
 */
export const SECRET_FILE = 'jwt-secret';

/** The service-role key's file name inside DATA_DIR (mode 0600; never served over HTTP). */
export const SERVICE_ROLE_KEY_FILE = 'service_role.key';

/** Access-token lifetime, as hosted GoTrue's default: how long a signed user token is believed. */
export const ACCESS_TOKEN_SECONDS = 3600;

/** The anon key's fixed claims, so the key stays the same across restarts. */
const ANON_CLAIMS = { iss: 'supabase', role: 'anon', iat: 1_735_689_600, exp: 4_102_444_800 };
/** The service-role key's fixed claims, likewise stable for as long as the signing secret is. */
const SERVICE_ROLE_CLAIMS = { ...ANON_CLAIMS, role: 'service_role' };

/** Why a token was refused: expired, invalid, or its session has ended. */
export class TokenError extends Error {
  constructor(readonly reason: 'expired' | 'invalid' | 'revoked', message: string) {
    super(message);
    this.name = 'TokenError';
  }
}

/** Signs and verifies the HS256 JWTs of this server. */
export interface TokenKeys {
  /** The public anon key: a JWT with role anon. */
  anonKey: string;
  /** The secret service-role key: a JWT with role service_role, for the operator only. */
  serviceRoleKey: string;
  /** Signs `claims` as they are (they must hold iat and exp). */
  sign(claims: Claims): Promise<string>;
  /** Verifies signature and expiry; throws {@link TokenError}. Requires `role` and `exp`. */
  verify(token: string): Promise<Claims>;
}

/** The statement that reads the signing secret the nodes share (one row, column `secret`, base64url). */
export const SIGNING_SECRET_SQL = 'select secret from auth.jwt_secret';

/** The database's signing secret (base64url), or null before any node made one. */
export async function readSigningSecret(db: Queryable): Promise<string | null> {
  const { rows } = await db.query<{ secret: string }>(SIGNING_SECRET_SQL);
  return rows[0]?.secret ?? null;
}

/** Makes `secret` (base64url) the database's signing secret in place of any other: tokens signed with the other are refused from then on. */
export async function replaceSigningSecret(db: Queryable, secret: string): Promise<void> {
  await db.query(
    'insert into auth.jwt_secret (secret) values ($1) on conflict (id) do update set secret = excluded.secret, created_at = now()',
    [secret],
  );
}

/** Where the shared secret came from at this start, for the log. */
export type SecretSource = 'database' | 'imported' | 'created';

/**
 * The secret every node signs and verifies with, from the database. On a database without one
 * the first node to start stores DATA_DIR/{@link SECRET_FILE} when it has one (a server
 * upgraded into a cluster keeps its players' tokens valid), else a new random secret. Nodes
 * starting at once each offer theirs and the first insert wins (the others' conflict with it and
 * do nothing), then every node reads the one stored.
 */
async function sharedSecret(db: Queryable, dataDir: string): Promise<{ secret: Uint8Array; source: SecretSource }> {
  let stored = await readSigningSecret(db);
  let source: SecretSource = 'database';
  if (stored === null) {
    const file = (await readFile(join(dataDir, SECRET_FILE), 'utf8').catch(() => '')).trim();
    const offered = file || randomBytes(48).toString('base64url');
    const { rows } = await db.query<{ secret: string }>(
      'insert into auth.jwt_secret (secret) values ($1) on conflict (id) do nothing returning secret',
      [offered],
    );
    if (rows.length > 0) source = file ? 'imported' : 'created';
    stored = await readSigningSecret(db);
    if (stored === null) throw new Error('the signing secret could not be stored in auth.jwt_secret');
  }
  return { secret: new Uint8Array(Buffer.from(stored, 'base64url')), source };
}

/**
 * Tokens verified lately, with their claims: a player sends the same token with every request
 * for its hour, and checking its signature again each time is a large share of a busy server's
 * work. Keyed by the whole token, signature included, so only a token that verified can hit.
 */
const MAX_VERIFIED_TOKENS = 4096;

/**
 * Loads the signing secret the nodes share from the database (made once, by the first node that
 * starts, from `dataDir`'s older file or at random) and builds the keys: the same anon and
 * service-role keys on every node.
 */
export async function loadKeys(db: Queryable, dataDir: string): Promise<TokenKeys & { source: SecretSource }> {
  const { secret, source } = await sharedSecret(db, dataDir);
  return { ...(await keysOf(secret)), source };
}

/** The keys that sign and verify with `secret`. */
export async function keysOf(secret: Uint8Array): Promise<TokenKeys> {
  const sign = (claims: Claims) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(secret);
  const verified = new Map<string, Readonly<Claims>>();
  return {
    anonKey: await sign(ANON_CLAIMS),
    serviceRoleKey: await sign(SERVICE_ROLE_CLAIMS),
    sign,
    async verify(token) {
      const known = verified.get(token);
      if (known) {
        if (known.exp * 1000 > Date.now()) return known;
        verified.delete(token);
        throw new TokenError('expired', 'JWT expired');
      }
      try {
        const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'] });
        if (typeof payload.role !== 'string' || typeof payload.exp !== 'number') {
          throw new TokenError('invalid', 'JWT lacks role or exp');
        }
        const claims = Object.freeze(payload) as Claims;
        // The oldest entry makes room: the map never holds more than MAX_VERIFIED_TOKENS.
        if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
        verified.set(token, claims);
        return claims;
      } catch (error) {
        if (error instanceof TokenError) throw error;
        if (error instanceof errors.JWTExpired) throw new TokenError('expired', 'JWT expired');
        throw new TokenError('invalid', error instanceof errors.JOSEError ? error.code : 'JWT could not be decoded');
      }
    },
  };
}

/**
 * Writes the service-role key to `DATA_DIR/service_role.key`, readable by the operator only,
 * and returns the file's path. The file is made anew each start, so it is mode 0600 even if
 * someone widened an earlier one.
 */
export async function writeServiceRoleKey(dataDir: string, keys: Pick<TokenKeys, 'serviceRoleKey'>): Promise<string> {
  const path = join(dataDir, SERVICE_ROLE_KEY_FILE);
  await rm(path, { force: true });
  await writeFile(path, `${keys.serviceRoleKey}\n`, { flag: 'wx', mode: 0o600 });
  return path;
}
