import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Claims, Database } from '../db/index.js';
import { readBody } from '../http/body.js';
import type { ClientAddresses } from '../http/client-address.js';
import { bearerToken, sendJson } from '../http/respond.js';
import { checkHardDelete, readNewUser, readUserId } from './admin.js';
import { refuseBanned } from './bans.js';
import { createEmailUser, deleteUser, signInPassword } from './email-users.js';
import { AuthError, authNotFoundBody } from './errors.js';
import { TokenError, type TokenKeys } from './keys.js';
import type { AuthRequestLimits } from './limits.js';
import type { RateLimiter } from './rate-limit.js';
import type { Revocations } from './revocations.js';
import { sessionResponse } from './session.js';
import type { Site } from './site.js';
import { endSessions, getUser, refreshSession, signInWeb3 } from './users.js';
import { verifyWeb3Grant, type Web3Grant } from './web3.js';

const BODY_LIMIT = 64 * 1024;

/** What the Auth routes need. `keys` must refuse tokens of ended sessions. */
export interface AuthContext extends AuthRequestLimits {
  db: Database;
  keys: TokenKeys;
  /** The site sign-in is bound to; its origin is the token issuer's base. */
  site: Site;
  revocations: Revocations;
  /** Who sent a request: the per-address limits count per client address. */
  clients: ClientAddresses;
  /** Web3 sign-ins per client IP address. */
  signInsPerIp: RateLimiter;
  /** Web3 sign-ins per wallet, counted once the signature is verified. */
  signInsPerWallet: RateLimiter;
  /** Password sign-ins per email address, counted before the password is checked. */
  signInsPerEmail: RateLimiter;
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

async function verifiedClaims(req: IncomingMessage, keys: TokenKeys): Promise<Claims> {
  const token = bearerToken(req);
  if (!token) throw new AuthError(401, 'no_authorization', 'This endpoint requires a Bearer token');
  return keys.verify(token).catch((error: Error) => {
    if (error instanceof TokenError && error.reason === 'revoked') throw new AuthError(403, 'session_not_found', error.message);
    throw new AuthError(403, 'bad_jwt', `invalid JWT: ${error.message}`);
  });
}

async function userClaims(req: IncomingMessage, keys: TokenKeys): Promise<Claims & { sub: string }> {
  const claims = await verifiedClaims(req, keys);
  if (typeof claims.sub !== 'string' || claims.role === 'anon') {
    throw new AuthError(403, 'bad_jwt', 'invalid claim: missing sub claim');
  }
  return claims as Claims & { sub: string };
}

/** The admin API takes the service-role key only: anything else, a user's token included, is GoTrue's 403 `not_admin`. */
async function requireServiceRole(req: IncomingMessage, keys: TokenKeys): Promise<void> {
  const claims = await verifiedClaims(req, keys);
  if (claims.role !== 'service_role') throw new AuthError(403, 'not_admin', 'User not allowed');
}

function overLimit(retryAfterSeconds: number): AuthError {
  return new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached', { 'Retry-After': String(retryAfterSeconds) });
}

/**
 * Serves the Auth routes under `/auth/v1` (`path` is the part after it): the web3, password and
 * refresh_token grants, logout, the current user, the admin API's user create, read and delete
 * (service role only), and sign-up, refused as GoTrue refuses it with sign-ups disabled.
 * Every request first counts against its client address's limit (`/token` or the rest), before any work.
 * Throws {@link AuthError} for refusals.
 */
export async function handleAuth(req: IncomingMessage, res: ServerResponse, path: string, auth: AuthContext): Promise<void> {
  const { db, keys, site } = auth;
  const url = new URL(req.url ?? '/', 'http://x');
  const issuer = `${site.origin}/auth/v1`;
  const address = auth.clients.of(req);
  const isToken = req.method === 'POST' && path === '/token';
  const addressWait = await (isToken ? auth.tokenRequestsPerIp : auth.authRequestsPerIp).take(address);
  if (addressWait > 0) throw overLimit(addressWait);
  if (isToken) {
    const grantType = url.searchParams.get('grant_type');
    if (grantType === 'web3') {
      const ipWait = await auth.signInsPerIp.take(address);
      if (ipWait > 0) throw overLimit(ipWait);
      const message = verifyWeb3Grant((await readJson(req)) as Web3Grant, site);
      const walletWait = await auth.signInsPerWallet.take(message.siws.address);
      if (walletWait > 0) throw overLimit(walletWait);
      await refuseBanned(db, message.siws.address);
      const grant = await signInWeb3(db, message);
      return sendJson(res, 200, await sessionResponse(keys, grant, issuer));
    }
    if (grantType === 'password') {
      const ipWait = await auth.signInsPerIp.take(address);
      if (ipWait > 0) throw overLimit(ipWait);
      const { email, phone, password } = await readJson(req);
      if (email && phone) throw new AuthError(400, 'validation_failed', 'Only an email address or phone number should be provided on login.');
      if (phone) throw new AuthError(422, 'phone_provider_disabled', 'Phone logins are disabled');
      if (typeof email !== 'string' || email === '') throw new AuthError(400, 'validation_failed', 'missing email or phone');
      if (typeof password !== 'string') throw new AuthError(400, 'bad_json', 'Could not parse request body as JSON: password must be a string');
      const emailWait = await auth.signInsPerEmail.take(email.toLowerCase());
      if (emailWait > 0) throw overLimit(emailWait);
      return sendJson(res, 200, await sessionResponse(keys, await signInPassword(db, email, password), issuer));
    }
    const body = await readJson(req);
    if (grantType === 'refresh_token') {
      if (typeof body.refresh_token !== 'string') throw new AuthError(400, 'validation_failed', 'refresh_token is required');
      const outcome = await refreshSession(db, body.refresh_token, async (sessionId) => {
        const sessionWait = await auth.refreshesPerSession.take(sessionId);
        if (sessionWait > 0) throw overLimit(sessionWait);
      });
      if (outcome.kind === 'reused') {
        auth.revocations.add([outcome.sessionId]);
        throw new AuthError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
      }
      if (outcome.kind === 'not_found') throw new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      return sendJson(res, 200, await sessionResponse(keys, outcome.grant, issuer));
    }
    throw new AuthError(400, 'unsupported_grant_type', 'unsupported_grant_type');
  }
  if (req.method === 'POST' && path === '/signup') {
    throw new AuthError(422, 'signup_disabled', 'Signups not allowed for this instance');
  }
  if (path === '/admin' || path.startsWith('/admin/')) return handleAdmin(req, res, path, auth);
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
  return sendJson(res, 404, authNotFoundBody(req));
}

/**
 * The admin API, after the service-role check: `POST /admin/users`, `GET` and `DELETE
 * /admin/users/<id>` (auth-js reads the user before it deletes it).
 */
async function handleAdmin(req: IncomingMessage, res: ServerResponse, path: string, auth: AuthContext): Promise<void> {
  await requireServiceRole(req, auth.keys);
  if (req.method === 'POST' && path === '/admin/users') {
    return sendJson(res, 200, await createEmailUser(auth.db, readNewUser(await readJson(req))));
  }
  const userPath = /^\/admin\/users\/([^/]+)$/.exec(path);
  if (req.method === 'GET' && userPath) {
    const user = await getUser(auth.db, readUserId(userPath[1]!));
    if (!user) throw new AuthError(404, 'user_not_found', 'User not found');
    return sendJson(res, 200, user);
  }
  if (req.method === 'DELETE' && userPath) {
    const userId = readUserId(userPath[1]!);
    checkHardDelete(await readJson(req));
    const ended = await deleteUser(auth.db, userId);
    if (ended === null) throw new AuthError(404, 'user_not_found', 'User not found');
    auth.revocations.add(ended);
    return sendJson(res, 200, {});
  }
  return sendJson(res, 404, authNotFoundBody(req));
}
