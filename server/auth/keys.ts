import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { Claims } from '../db/index.js';

/** The signing secret's file name inside DATA_DIR. */
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

async function loadSecret(dataDir: string): Promise<Uint8Array> {
  const path = join(dataDir, SECRET_FILE);
  const existing = await readFile(path, 'utf8').catch(() => null);
  if (existing) return new Uint8Array(Buffer.from(existing.trim(), 'base64url'));
  const secret = randomBytes(48);
  // 'wx' fails if another start wrote it meanwhile; the DATA_DIR lock makes that impossible.
  await writeFile(path, secret.toString('base64url'), { flag: 'wx', mode: 0o600 });
  return new Uint8Array(secret);
}

/**
 * Tokens verified lately, with their claims: a player sends the same token with every request
 * for its hour, and checking its signature again each time is a large share of a busy server's
 * work. Keyed by the whole token, signature included, so only a token that verified can hit.
 */
const MAX_VERIFIED_TOKENS = 4096;

/** Loads the signing secret from `dataDir` (made once, on first start) and builds the keys. */
export async function loadKeys(dataDir: string): Promise<TokenKeys> {
  const secret = await loadSecret(dataDir);
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
