import type { IncomingMessage } from 'node:http';
import { authNotFoundBody } from './auth/errors.js';
import { invalidPathError } from './rest/errors.js';

/** The services under the API prefixes, each answering an unknown path in its own shape. */
export const API_SERVICES = ['rest', 'auth', 'realtime', 'storage', 'functions'] as const;

/** One of {@link API_SERVICES}. */
export type ApiService = (typeof API_SERVICES)[number];

/** The service owning `pathname` (`/rest/...`, `/auth/...`, ...), or null for the web app. */
export function apiServiceOf(pathname: string): ApiService | null {
  const first = pathname.split('/')[1] ?? '';
  return (API_SERVICES as readonly string[]).includes(first) ? (first as ApiService) : null;
}

/**
 * The 404 body each hosted service sends for a path it does not serve:
 * PostgREST's PGRST125; GoTrue's error ({@link authNotFoundBody}); Realtime's
 * `{message}`; the Storage API's (Fastify) `{statusCode, error, message}`; the Edge Functions
 * relay's `{code, message}`.
 */
export function notFoundBody(service: ApiService, req: IncomingMessage, pathname: string): Record<string, unknown> {
  switch (service) {
    case 'rest':
      return invalidPathError().body();
    case 'auth':
      return authNotFoundBody(req);
    case 'realtime':
      return { message: 'Not Found' };
    case 'storage':
      return { statusCode: 404, error: 'Not Found', message: `Route ${req.method}:${pathname} not found` };
    case 'functions':
      return { code: 'NOT_FOUND', message: 'Requested function was not found' };
  }
}
