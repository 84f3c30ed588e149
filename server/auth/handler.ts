import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Claims, Database } from '../db/index.js';
import { readBody } from '../http/body.js';
import { notFoundBody } from '../http/not-found.js';
import { bearerToken, sendJson } from '../http/respond.js';
import { AuthError } from './errors.js';
import { TokenError, type TokenKeys } from './keys.js';
import type { RateLimiter } from './rate-limit.js';
import type { Revocations } from './revocations.js';
import { sessionResponse } from './session.js';
import type { Site } from './site.js';
import { endSessions, getUser, refreshSession, signInWeb3 } from './users.js';
import { verifyWeb3Grant, type Web3Grant } from './web3.js';

const BODY_LIMIT = 64 * 1024;

/** What the Auth routes need. `keys` must refuse tokens of ended sessions. */
export interface AuthContext {
  db: Database;
  keys: TokenKeys;
  /** The site sign-in is bound to; its origin is the token issuer's base. */
  site: Site;
  revocations: Revocations;
  /** Web3 sign-ins per client IP address. */
  signInsPerIp: RateLimiter;
  /** Web3 sign-ins per wallet, counted once the signature is verified. */
  signInsPerWallet: RateLimiter;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(req, BODY_LIMIT);
  try {
    const value: unknown = JSON.parse(text || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below as a bad JSON body.
  }
  throw new AuthError(400, 'bad_json', 'Could not parse request body as JSON');
}

async function userClaims(req: IncomingMessage, keys: TokenKeys): Promise<Claims & { sub: string }> {
  const token = bearerToken(req);
  if (!token) throw new AuthError(401, 'no_authorization', 'This endpoint requires a Bearer token');
  const claims = await keys.verify(token).catch((error: Error) => {
    if (error instanceof TokenError && error.reason === 'revoked') throw new AuthError(403, 'session_not_found', error.message);
    throw new AuthError(403, 'bad_jwt', `invalid JWT: ${error.message}`);
  });
  if (typeof claims.sub !== 'string' || claims.role === 'anon') {
    throw new AuthError(403, 'bad_jwt', 'invalid claim: missing sub claim');
  }
  return claims as Claims & { sub: string };
}

function overLimit(retryAfterSeconds: number): AuthError {
  return new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached', { 'Retry-After': String(retryAfterSeconds) });
}

/**
 * Serves the Auth routes under `/auth/v1` (`path` is the part after it): the web3 and
 * refresh_token grants, logout and the current user. Throws {@link AuthError} for refusals.
 */
export async function handleAuth(req: IncomingMessage, res: ServerResponse, path: string, auth: AuthContext): Promise<void> {
  const { db, keys, site } = auth;
  const url = new URL(req.url ?? '/', 'http://x');
  const issuer = `${site.origin}/auth/v1`;
  if (req.method === 'POST' && path === '/token') {
    const grantType = url.searchParams.get('grant_type');
    if (grantType === 'web3') {
      const ipWait = auth.signInsPerIp.take(req.socket.remoteAddress ?? '');
      if (ipWait > 0) throw overLimit(ipWait);
      const message = verifyWeb3Grant((await readJson(req)) as Web3Grant, site);
      const walletWait = auth.signInsPerWallet.take(message.siws.address);
      if (walletWait > 0) throw overLimit(walletWait);
      const grant = await signInWeb3(db, message);
      return sendJson(res, 200, await sessionResponse(keys, grant, issuer));
    }
    const body = await readJson(req);
    if (grantType === 'refresh_token') {
      if (typeof body.refresh_token !== 'string') throw new AuthError(400, 'validation_failed', 'refresh_token is required');
      const outcome = await refreshSession(db, body.refresh_token);
      if (outcome.kind === 'reused') {
        auth.revocations.add([outcome.sessionId]);
        throw new AuthError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
      }
      if (outcome.kind === 'not_found') throw new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      return sendJson(res, 200, await sessionResponse(keys, outcome.grant, issuer));
    }
    throw new AuthError(400, 'unsupported_grant_type', 'unsupported_grant_type');
  }
  if (req.method === 'POST' && path === '/logout') {
    const claims = await userClaims(req, keys);
    const ended = await endSessions(db, claims.sub, String(claims.session_id ?? ''), url.searchParams.get('scope') ?? 'global');
    auth.revocations.add(ended);
    return sendJson(res, 204, undefined);
  }
  if (req.method === 'GET' && path === '/user') {
    const claims = await userClaims(req, keys);
    const user = await getUser(db, claims.sub);
    if (!user) throw new AuthError(403, 'user_not_found', 'User from sub claim in JWT does not exist');
    return sendJson(res, 200, user);
  }
  return sendJson(res, 404, notFoundBody('auth', req, url.pathname));
}
