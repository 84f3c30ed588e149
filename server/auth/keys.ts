import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { Claims } from '../db/index.js';

/** The signing secret's file name inside DATA_DIR. */
export const SECRET_FILE = 'jwt-secret';

/** The anon key's fixed claims, so the key stays the same across restarts. */
const ANON_CLAIMS = { iss: 'supabase', role: 'anon', iat: 1_735_689_600, exp: 4_102_444_800 };

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

/** Loads the signing secret from `dataDir` (made once, on first start) and builds the keys. */
export async function loadKeys(dataDir: string): Promise<TokenKeys> {
  const secret = await loadSecret(dataDir);
  const sign = (claims: Claims) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(secret);
  return {
    anonKey: await sign(ANON_CLAIMS),
    sign,
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'] });
        if (typeof payload.role !== 'string' || typeof payload.exp !== 'number') {
          throw new TokenError('invalid', 'JWT lacks role or exp');
        }
        return payload as Claims;
      } catch (error) {
        if (error instanceof TokenError) throw error;
        if (error instanceof errors.JWTExpired) throw new TokenError('expired', 'JWT expired');
        throw new TokenError('invalid', error instanceof errors.JOSEError ? error.code : 'JWT could not be decoded');
      }
    },
  };
}
