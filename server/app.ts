import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { watchBans } from './auth/bans.js';
import { AuthError } from './auth/errors.js';
import { handleAuth, type AuthContext } from './auth/handler.js';
import { loadKeys, writeServiceRoleKey } from './auth/keys.js';
import { syncOperators } from './auth/operators.js';
import { createRateLimiter } from './auth/rate-limit.js';
import { loadRevocations, refusingEnded } from './auth/revocations.js';
import { resolveSite, type ConfigError, type Site, type SiteSettings } from './auth/site.js';
import { startDatabase } from './db/index.js';
import { applyCors } from './http/cors.js';
import { apiServiceOf, notFoundBody } from './http/not-found.js';
import { sendJson } from './http/respond.js';
import { applySecurityHeaders, contentSecurityPolicy } from './http/security.js';
import { attachRealtime } from './realtime/index.js';
import { loadCatalogs } from './rest/catalog.js';
import { watchSchema } from './rest/schema-watch.js';
import { RestError } from './rest/errors.js';
import { handleRest, type RestContext } from './rest/handler.js';
import { createRefusalCache } from './rest/refusals.js';
import { BadPathError, createStaticHandler } from './static.js';

/** Web3 sign-ins allowed per IP address in {@link SIGN_IN_WINDOW_MS} unless configured (the Supabase CLI's `[auth.rate_limit] web3`). */
export const DEFAULT_SIGN_INS_PER_IP = 30;
/** Web3 sign-ins allowed per wallet in {@link SIGN_IN_WINDOW_MS}: a player reloading now and then stays far below it. */
export const SIGN_INS_PER_WALLET = 10;
/** Password sign-ins allowed per email address in {@link SIGN_IN_WINDOW_MS}, failed ones included: a bound on guessing one account's password. */
export const SIGN_INS_PER_EMAIL = 10;
/** The window of the sign-in rate limits: 5 minutes, as hosted Supabase counts them. */
export const SIGN_IN_WINDOW_MS = 5 * 60 * 1000;

/** The Auth API version whose error shape (`{code, message}`) this server answers in. */
const AUTH_API_VERSION = '2024-01-01';

/** Where the server listens, keeps its data and finds the built client, and the site it signs players in for. */
export interface ServerOptions extends SiteSettings {
  port: number;
  dataDir: string;
  /** The public folder of the built client (`dist/public`): everything in it is served. */
  publicDir: string;
  /** Folder of the migrations; defaults to `supabase/migrations` under the working directory. */
  migrationsDir?: string;
  /** Host to bind; defaults to all interfaces. */
  host?: string;
  /** An existing PostgreSQL (`DATABASE_URL`) instead of the embedded cluster in `dataDir`. */
  databaseUrl?: string;
  /** Pooled database connections (`DB_POOL`). */
  poolSize?: number;
  /** Web3 and password sign-ins per IP address in 5 minutes; defaults to {@link DEFAULT_SIGN_INS_PER_IP}. */
  signInsPerIp?: number;
  /** The schemas REST exposes (`PGRST_DB_SCHEMAS`), the first the default; defaults to `public`. */
  restSchemas?: string[];
  /** The operator wallets (`OPERATOR_WALLETS`), written to the database at start. */
  operatorWallets?: string[];
}

/** A running server. */
export interface RunningServer {
  /** `http://localhost:<port>` */
  url: string;
  /** `DATA_DIR/service_role.key`: the secret service-role key, mode 0600, for the operator. */
  serviceRoleKeyFile: string;
  /** Stops accepting connections, closes Realtime and the database, releases the DATA_DIR lock. */
  close(): Promise<void>;
  /** Settles if the embedded PostgreSQL dies under the running server. */
  lost: Promise<Error>;
}

function pathUnder(pathname: string, prefix: string): string | null {
  if (pathname === prefix) return '';
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : null;
}

/** The hosted build's `config.json` (written by `npm run build` with SUPABASE_URL set), if any. */
async function hostedConfig(publicDir: string): Promise<{ text: string; supabaseUrl: string } | null> {
  const text = await readFile(join(publicDir, 'config.json'), 'utf8').catch(() => null);
  return text === null ? null : { text, supabaseUrl: (JSON.parse(text) as { supabaseUrl: string }).supabaseUrl };
}

function sendError(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  if (error instanceof BadPathError) {
    res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.end('Bad Request: the path is not valid percent-encoding');
    return;
  }
  const known = error instanceof RestError || error instanceof AuthError;
  const status = known ? error.status : 500;
  const code = known ? error.code : 'internal';
  const pathname = new URL(req.url ?? '/', 'http://x').pathname;
  console.error(`${req.method} ${pathname} ${status} ${code}${known ? '' : ` ${String(error)}`}`);
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers = known ? error.headers : {};
  sendJson(res, status, known ? error.body() : { code: 'internal', message: 'Internal server error' }, headers);
}

/**
 * Starts Tessera's embedded backend: locks `dataDir`, starts PostgreSQL there (or connects to
 * `databaseUrl`), applies the migrations,
 * attaches Realtime and serves `/rest/v1`, `/auth/v1`, `/realtime/v1/websocket`, the Realtime
 * broadcast API (`/realtime/v1/api/broadcast`),
 * `/config.json` and the built client from `publicDir` on `port` (0 picks a free port), and
 * writes the service-role key to `dataDir` (never served). Any
 * other path under an API prefix is a JSON 404 in the owning service's shape; every answer
 * carries the security headers of `http/security.ts`. Sign-in is bound to `siteUrl` (default:
 * this server's loopback origins) and the allow-list; throws {@link ConfigError} for a
 * malformed URL before anything starts.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  // Checks the URLs before the database starts; the real port is known once listening.
  resolveSite(options, options.port);
  const db = await startDatabase({
    dataDir: options.dataDir,
    migrationsDir: options.migrationsDir ?? join(process.cwd(), 'supabase', 'migrations'),
    databaseUrl: options.databaseUrl,
    poolSize: options.poolSize,
  });
  try {
    const revocations = await loadRevocations(db);
    await syncOperators(db, options.operatorWallets ?? []);
    const stopBanWatch = await watchBans(db, revocations, (message) => console.error(message));
    const keys = refusingEnded(await loadKeys(options.dataDir), revocations);
    const serviceRoleKeyFile = await writeServiceRoleKey(options.dataDir, keys);
    const restSchemas = options.restSchemas ?? ['public'];
    const rest: RestContext = { db, keys, catalogs: await loadCatalogs(db, restSchemas), refusals: createRefusalCache() };
    const stopSchemaWatch = await watchSchema(
      db,
      async () => {
        rest.catalogs = await loadCatalogs(db, restSchemas);
      },
      (message) => console.error(message),
    );
    const serveStatic = createStaticHandler(options.publicDir);
    const hosted = await hostedConfig(options.publicDir);
    const csp = contentSecurityPolicy(hosted?.supabaseUrl);
    const signInLimits: Pick<AuthContext, 'signInsPerIp' | 'signInsPerWallet' | 'signInsPerEmail'> = {
      signInsPerIp: createRateLimiter(options.signInsPerIp ?? DEFAULT_SIGN_INS_PER_IP, SIGN_IN_WINDOW_MS),
      signInsPerWallet: createRateLimiter(SIGN_INS_PER_WALLET, SIGN_IN_WINDOW_MS),
      signInsPerEmail: createRateLimiter(SIGN_INS_PER_EMAIL, SIGN_IN_WINDOW_MS),
    };
    // Set once listening, when the port that 0 asks for is known; no request arrives before.
    let site: Site | null = null;

    const route = async (req: IncomingMessage, res: ServerResponse) => {
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      const service = apiServiceOf(pathname);
      if (service) {
        if (applyCors(req, res)) return;
        const restPath = pathUnder(pathname, '/rest/v1');
        if (restPath !== null) return handleRest(req, res, restPath, rest);
        const authPath = pathUnder(pathname, '/auth/v1');
        if (authPath !== null) {
          // GoTrue names the API version of its error bodies; auth-js reads `code` only then.
          res.setHeader('X-Supabase-Api-Version', AUTH_API_VERSION);
          return handleAuth(req, res, authPath, { db, keys, site: site!, revocations, ...signInLimits });
        }
        const realtimePath = pathUnder(pathname, '/realtime/v1');
        if (realtimePath !== null && (await realtime.handleHttp(req, res, realtimePath))) return;
        return sendJson(res, 404, notFoundBody(service, req, pathname));
      }
      if (pathname === '/config.json') {
        const config = hosted?.text ?? JSON.stringify({ supabaseUrl: site!.origin, supabaseAnonKey: keys.anonKey });
        return sendJson(res, 200, config, { 'Cache-Control': 'no-cache' });
      }
      return serveStatic(req, res);
    };

    const server = createServer((req, res) => {
      applySecurityHeaders(res, csp);
      route(req, res).catch((error: unknown) => sendError(req, res, error));
    });
    const realtime = await attachRealtime(server, { db, verifyToken: (token) => keys.verify(token), anonKey: keys.anonKey });
    revocations.onRevoked((sessionId) => realtime.endSession(sessionId));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    site = resolveSite(options, port);
    return {
      url: `http://localhost:${port}`,
      serviceRoleKeyFile,
      lost: db.lost,
      close: async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await realtime.close();
        await stopSchemaWatch();
        await stopBanWatch();
        await closed;
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
