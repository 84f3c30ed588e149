import type { IncomingMessage } from 'node:http';

/**
 * An Auth API error. OAuth-style errors (`invalid_grant`) are sent as
 * `{error, error_description}`, the others as `{code, message}` (API version 2024-01-01).
 */
export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers, such as `Retry-After` on a 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AuthError';
  }

  /** The response body GoTrue sends for this error. */
  body(): Record<string, unknown> {
    return this.code === 'invalid_grant'
      ? { error: this.code, error_description: this.message }
      : { code: this.code, message: this.message };
  }
}

/** GoTrue's 422 `weak_password`: the body also names the rules the password broke. */
export class WeakPasswordError extends AuthError {
  constructor(
    message: string,
    readonly reasons: string[],
  ) {
    super(422, 'weak_password', message);
  }

  override body(): Record<string, unknown> {
    return { code: this.code, message: this.message, weak_password: { reasons: this.reasons } };
  }
}

/**
 * GoTrue's 404 body for a path it does not serve: `{code, message}` from API version 2024-01-01,
 * which supabase-js sends in `X-Supabase-Api-Version`, else `{code, error_code, msg}`.
 */
export function authNotFoundBody(req: IncomingMessage): Record<string, unknown> {
  return req.headers['x-supabase-api-version'] === '2024-01-01'
    ? { code: 'not_found', message: 'Not found' }
    : { code: 404, error_code: 'not_found', msg: 'Not found' };
}
