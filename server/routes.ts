import type { IncomingMessage, ServerResponse } from 'node:http';
import { AuthError } from './auth/errors.js';
import { handleAuth, type AuthContext } from './auth/handler.js';
import type { Site } from './auth/site.js';
import { applyCors } from './http/cors.js';
import type { ClientAddresses } from './http/client-address.js';
import { serveHealth, serveMetrics } from './http/ops.js';
import { pathUnder } from './http/paths.js';
import { pathRefusal, pathRefusalBody, requestPath } from './http/request-path.js';
import { sendJson } from './http/respond.js';
import type { log } from './log.js';
import { apiServiceOf, notFoundBody } from './not-found.js';
import { RestError } from './rest/errors.js';
import { handleRest, type RestContext } from './rest/handler.js';

/** The Auth API version whose error shape (`{code, message}`) this server answers in. */
const AUTH_API_VERSION = '2024-01-01';

/** What the routes hand each request to. `site`, `port` and `realtime` are set before the server listens or once it does. */
export interface Routes {
  /** `METRICS_TOKEN`, if set. */
  metricsToken: string | undefined;
  /** Who sent a request (`TRUSTED_PROXIES`). */
  clients: ClientAddresses;
  serveReadiness: (res: ServerResponse) => Promise<void>;
  /** Serves the built client for a path in normal form. */
  serveStatic: (req: IncomingMessage, res: ServerResponse, pathname: string) => Promise<void>;
  rest: RestContext;
  /** Auth's context but the site, which is known once listening. */
  auth: Omit<AuthContext, 'site'>;
  /** The hosted build's `config.json` text, served as it is, or null to answer with this server. */
  hostedConfig: string | null;
  /** The site sign-in is bound to; null until the server listens. */
  site: Site | null;
  /** The port listened on; 0 until the server listens. */
  port: number;
  /** Realtime's HTTP endpoints: true when it answered the request. Null until Realtime is attached. */
  realtime: ((req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>) | null;
}

/**
 * The origin of `/config.json`: the loopback origin the page was loaded from (`localhost`,
 * `127.0.0.1` or `[::1]` on this port), so that the page talks to the server it came from under
 * its `connect-src 'self'`; for any other Host the configured site. A Host outside these three
 * changes nothing, and sign-in still checks the signed message against the site.
 */
function configOrigin(req: IncomingMessage, site: Site, port: number): string {
  const host = (req.headers.host ?? '').toLowerCase();
  return [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`].includes(host) ? `http://${host}` : site.origin;
}

/** Hands a request under an API prefix to its service: REST, Auth, Realtime, else the service's JSON 404. */
async function routeApi(req: IncomingMessage, res: ServerResponse, pathname: string, routes: Routes): Promise<void> {
  const service = apiServiceOf(pathname)!;
  if (applyCors(req, res)) return;
  const restPath = pathUnder(pathname, '/rest/v1');
  if (restPath !== null) return handleRest(req, res, restPath, routes.rest);
  const authPath = pathUnder(pathname, '/auth/v1');
  if (authPath !== null) {
    // GoTrue names the API version of its error bodies; auth-js reads `code` only then.
    res.setHeader('X-Supabase-Api-Version', AUTH_API_VERSION);
    return handleAuth(req, res, authPath, { ...routes.auth, site: routes.site! });
  }
  const realtimePath = pathUnder(pathname, '/realtime/v1');
  if (realtimePath !== null && (await routes.realtime!(req, res, realtimePath))) return;
  return sendJson(res, 404, notFoundBody(service, req, pathname));
}

/**
 * Answers one request: a path not in normal form with 400 (`http/request-path.ts`), before any
 * other reading of it; then the operations endpoints, the APIs, `/config.json`, else the built client.
 */
export async function route(req: IncomingMessage, res: ServerResponse, routes: Routes): Promise<void> {
  const pathname = requestPath(req.url);
  const refusal = pathRefusal(pathname);
  if (refusal) return sendJson(res, 400, pathRefusalBody(refusal), { 'Cache-Control': 'no-cache' });
  if (pathname === '/healthz') return serveHealth(res);
  if (pathname === '/readyz') return routes.serveReadiness(res);
  if (pathname === '/metrics') return serveMetrics(req, res, routes.metricsToken, routes.clients);
  if (apiServiceOf(pathname)) return routeApi(req, res, pathname, routes);
  if (pathname === '/config.json') {
    const config = routes.hostedConfig
      ?? JSON.stringify({ supabaseUrl: configOrigin(req, routes.site!, routes.port), supabaseAnonKey: routes.auth.keys.anonKey });
    return sendJson(res, 200, config, { 'Cache-Control': 'no-cache', Vary: 'Host' });
  }
  return routes.serveStatic(req, res, pathname);
}

/** Answers a request that threw: a REST or Auth error in its service's shape, anything else as a logged 500. */
export function sendError(req: IncomingMessage, res: ServerResponse, error: unknown, requestLog: typeof log): void {
  const known = error instanceof RestError || error instanceof AuthError;
  const status = known ? error.status : 500;
  const code = known ? error.code : 'internal';
  const pathname = requestPath(req.url);
  if (known) requestLog.info({ status, code }, `${req.method} ${pathname} ${status} ${code}`);
  else requestLog.error({ status, err: error }, `${req.method} ${pathname} ${status} ${code} ${String(error)}`);
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers = known ? error.headers : {};
  sendJson(res, status, known ? error.body() : { code: 'internal', message: 'Internal server error' }, headers);
}
