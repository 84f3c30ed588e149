import type { BudgetStore } from '../cluster/budget-store.js';
import type { RateLimiter } from './rate-limit.js';
import { bucketLimiter, windowLimiter } from './shared-limits.js';

/**
 * The Auth rate limits, modelled on hosted GoTrue's. Every request under `/auth/v1` counts
 * against one per-IP limit before any work is done: `POST /token` (every grant) against the
 * token limit, everything else against the request limit. The grants add their own: sign-ins
 * per IP, wallet and email address, refreshes per session.
 */

/** The window GoTrue counts its limits in: 5 minutes. */
export const AUTH_WINDOW_MS = 5 * 60 * 1000;
/** `POST /token` requests per IP in {@link AUTH_WINDOW_MS} unless configured (GoTrue's `GOTRUE_RATE_LIMIT_TOKEN_REFRESH`, 1,800 an hour). */
export const DEFAULT_TOKEN_REQUESTS_PER_IP = 150;
/** How many of them may come at once (GoTrue's burst for `/token`). */
export const TOKEN_BURST = 30;
/**
 * Other Auth requests (`/user`, `/logout`, `/signup`, the admin API) per IP in
 * {@link AUTH_WINDOW_MS} unless configured: a school of a few hundred players behind one address
 * reading its user a few times each still fits; a flood of signature checks and user reads does not.
 */
export const DEFAULT_AUTH_REQUESTS_PER_IP = 1500;
/** How many other Auth requests may come at once. */
export const AUTH_REQUEST_BURST = 150;
/**
 * Refreshes per session in {@link AUTH_WINDOW_MS}: a client refreshes about once an hour, a few
 * racing tabs at once; beyond this a session is being flooded.
 */
export const REFRESHES_PER_SESSION = 10;

/** The configurable limits (`RATE_LIMIT_TOKEN_REFRESH`, `RATE_LIMIT_AUTH_REQUESTS`). */
export interface AuthLimitSettings {
  /** `POST /token` requests per IP in 5 minutes; defaults to {@link DEFAULT_TOKEN_REQUESTS_PER_IP}. */
  tokenRequestsPerIp?: number;
  /** Other Auth requests per IP in 5 minutes; defaults to {@link DEFAULT_AUTH_REQUESTS_PER_IP}. */
  authRequestsPerIp?: number;
}

/** The per-IP and per-session limiters that come before any grant's own. */
export interface AuthRequestLimits {
  /** `POST /token`, every grant, per client IP address. */
  tokenRequestsPerIp: RateLimiter;
  /** Every other Auth request per client IP address. */
  authRequestsPerIp: RateLimiter;
  /** Refresh-token grants per session, counted once the token is found. */
  refreshesPerSession: RateLimiter;
}

/**
 * The limiters of {@link AuthRequestLimits}, counted over the cluster in `store` when it is one.
 * A configured number raises the burst with it (a fifth of the window's allowance, at least
 * GoTrue's), so a large allowance is usable at once.
 */
export function createAuthRequestLimits(settings: AuthLimitSettings, store: BudgetStore | null = null): AuthRequestLimits {
  const tokens = settings.tokenRequestsPerIp ?? DEFAULT_TOKEN_REQUESTS_PER_IP;
  const requests = settings.authRequestsPerIp ?? DEFAULT_AUTH_REQUESTS_PER_IP;
  return {
    tokenRequestsPerIp: bucketLimiter(store, 'auth-token-ip', tokens, AUTH_WINDOW_MS, Math.max(TOKEN_BURST, Math.floor(tokens / 5))),
    authRequestsPerIp: bucketLimiter(store, 'auth-request-ip', requests, AUTH_WINDOW_MS, Math.max(AUTH_REQUEST_BURST, Math.floor(requests / 10))),
    refreshesPerSession: windowLimiter(store, 'refresh-session', REFRESHES_PER_SESSION, AUTH_WINDOW_MS),
  };
}
