import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Claims, Database } from '../db/index.js';
import { readBody } from '../http/body.js';
import { bearerToken, requestOrigin, sendJson } from '../http/respond.js';
import { AuthError } from './errors.js';
import type { TokenKeys } from './keys.js';
import { sessionResponse } from './session.js';
import { endSessions, getUser, refreshSession, signInWeb3 } from './users.js';
import { verifyWeb3Grant, type Web3Grant } from './web3.js';

const BODY_LIMIT = 64 * 1024;

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
    throw new AuthError(403, 'bad_jwt', `invalid JWT: ${error.message}`);
  });
  if (typeof claims.sub !== 'string' || claims.role === 'anon') {
    throw new AuthError(403, 'bad_jwt', 'invalid claim: missing sub claim');
  }
  return claims as Claims & { sub: string };
}

/**
 * Serves the Auth routes under `/auth/v1` (`path` is the part after it): the web3 and
 * refresh_token grants, logout and the current user. Throws {@link AuthError} for refusals.
 */
export async function handleAuth(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  db: Database,
  keys: TokenKeys,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const issuer = `${requestOrigin(req)}/auth/v1`;
  if (req.method === 'POST' && path === '/token') {
    const grantType = url.searchParams.get('grant_type');
    const body = await readJson(req);
    if (grantType === 'web3') {
      const siws = verifyWeb3Grant(body as Web3Grant, req.headers.host ?? '');
      const grant = await signInWeb3(db, siws);
      return sendJson(res, 200, await sessionResponse(keys, grant, issuer));
    }
    if (grantType === 'refresh_token') {
      if (typeof body.refresh_token !== 'string') throw new AuthError(400, 'validation_failed', 'refresh_token is required');
      const grant = await refreshSession(db, body.refresh_token);
      if (!grant) throw new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      return sendJson(res, 200, await sessionResponse(keys, grant, issuer));
    }
    throw new AuthError(400, 'unsupported_grant_type', 'unsupported_grant_type');
  }
  if (req.method === 'POST' && path === '/logout') {
    const claims = await userClaims(req, keys);
    await endSessions(db, claims.sub, String(claims.session_id ?? ''), url.searchParams.get('scope') ?? 'global');
    return sendJson(res, 204, undefined);
  }
  if (req.method === 'GET' && path === '/user') {
    const claims = await userClaims(req, keys);
    const user = await getUser(db, claims.sub);
    if (!user) throw new AuthError(403, 'user_not_found', 'User from sub claim in JWT does not exist');
    return sendJson(res, 200, user);
  }
  throw new AuthError(404, 'not_found', 'Not found');
}
