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
