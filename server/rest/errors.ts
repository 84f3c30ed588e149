import { isJsonObject } from '../http/json.js';

/** A PostgREST error: HTTP status plus the `{code, message, details, hint}` body. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string | null = null,
    readonly hint: string | null = null,
    /** Extra response headers, such as `Retry-After` on a 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'RestError';
  }

  /** Structured details (PGRST201 lists the candidate relationships), sent instead of `details`. */
  detailList?: unknown[];

  /** The JSON body PostgREST sends. */
  body() {
    return { code: this.code, details: this.detailList ?? this.details, hint: this.hint, message: this.message };
  }
}

interface PostgresError {
  code: string;
  message: string;
  detail?: string;
  hint?: string;
}

function isPostgresError(error: unknown): error is PostgresError {
  return typeof error === 'object' && error !== null && typeof (error as PostgresError).code === 'string'
    && /^[0-9A-Z]{5}$/.test((error as PostgresError).code) && 'severity' in error;
}

/** The HTTP status PostgREST gives a SQLSTATE (PostgREST docs, errors.rst). */
function statusOf(code: string, authenticated: boolean): number {
  if (code === '42501') return authenticated ? 403 : 401;
  if (code === '23505' || code === '23503') return 409;
  if (code === '42P01' || code === '42883') return 404;
  if (code === '25006') return 405;
  if (code.startsWith('08') || code.startsWith('53')) return 503;
  if (code.startsWith('57')) return 500;
  return 400;
}

function parseObject(text: string | undefined): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * `RAISE SQLSTATE 'PGRST'`: SQL chooses the response, as PostgREST documents ("Raise errors with
 * HTTP Status Codes"). The message is the JSON body `{code, message, details, hint}`, the detail
 * is `{status, headers}`. Anything unparseable is PGRST121, as PostgREST answers it.
 */
function raisedResponse(error: PostgresError): RestError {
  const body = parseObject(error.message);
  const detail = parseObject(error.detail);
  const status = detail?.status;
  const headers = detail?.headers ?? {};
  const validHeaders = typeof headers === 'object' && headers !== null && !Array.isArray(headers)
    && Object.values(headers).every((v) => typeof v === 'string');
  if (!body || typeof body.code !== 'string' || typeof body.message !== 'string' || !Number.isInteger(status)
    || (status as number) < 100 || (status as number) > 599 || !validHeaders) {
    return new RestError(500, 'PGRST121', "Could not parse JSON in the RAISE SQLSTATE 'PGRST' error", error.message);
  }
  return new RestError(status as number, body.code, body.message, textOrNull(body.details), textOrNull(body.hint), headers as Record<string, string>);
}

/**
 * Turns a thrown value into a {@link RestError}: Postgres errors keep their SQLSTATE,
 * SQLSTATE PGRST picks its own status, headers and body, anything else becomes a 500.
 * `authenticated` says whether the caller had a user JWT.
 */
export function toRestError(error: unknown, authenticated: boolean): RestError {
  if (error instanceof RestError) return error;
  if (isPostgresError(error)) {
    if (error.code === 'PGRST') return raisedResponse(error);
    return new RestError(statusOf(error.code, authenticated), error.code, error.message, error.detail ?? null, error.hint ?? null);
  }
  return new RestError(500, 'PGRST000', 'Internal server error');
}

/** PGRST100: the query string could not be parsed. */
export const parseError = (message: string, details: string | null = null) =>
  new RestError(400, 'PGRST100', message, details);

/** PGRST125 (404): a path under `/rest/v1` that names no table. */
export const invalidPathError = () => new RestError(404, 'PGRST125', 'Invalid path specified in request URL');
