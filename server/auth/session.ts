import type { Claims } from '../db/index.js';
import { ACCESS_TOKEN_SECONDS, type TokenKeys } from './keys.js';
import type { SessionGrant } from './users.js';

/**
 * The access-token claims of a user (reference §4.5): a wallet user signed in with `web3`, an
 * email user (app_metadata provider `email`) with `password`, the only way each can sign in.
 */
export function accessClaims(grant: SessionGrant, issuer: string, now: number): Claims {
  const iat = Math.floor(now / 1000);
  const method = grant.user.app_metadata.provider === 'email' ? 'password' : 'web3';
  return {
    aud: 'authenticated',
    exp: iat + ACCESS_TOKEN_SECONDS,
    iat,
    iss: issuer,
    sub: grant.user.id,
    email: grant.user.email,
    phone: '',
    app_metadata: grant.user.app_metadata,
    user_metadata: grant.user.user_metadata,
    role: 'authenticated',
    aal: 'aal1',
    amr: [{ method, timestamp: iat }],
    session_id: grant.sessionId,
    is_anonymous: false,
  };
}

/** The session body GoTrue answers a token grant with (reference §4.4). */
export async function sessionResponse(keys: TokenKeys, grant: SessionGrant, issuer: string, now = Date.now()) {
  const claims = accessClaims(grant, issuer, now);
  return {
    access_token: await keys.sign(claims),
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    expires_at: claims.exp,
    refresh_token: grant.refreshToken,
    user: grant.user,
  };
}
