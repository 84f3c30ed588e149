import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { watchBans } from './auth/bans.js';
import { AuthError } from './auth/errors.js';
import { handleAuth, type AuthContext } from './auth/handler.js';
import { loadKeys, writeServiceRoleKey } from './auth/keys.js';
import { createAuthRequestLimits, type AuthLimitSettings } from './auth/limits.js';
import { syncOperators } from './auth/operators.js';
import { createRateLimiter } from './auth/rate-limit.js';
import { startSessionCleanup } from './auth/cleanup.js';
import { loadRevocations, refusingEnded } from './auth/revocations.js';
import { resolveSite, type ConfigError, type Site, type SiteSettings } from './auth/site.js';
import { scheduleBackups } from './backup/schedule.js';
import { startDatabase } from './db/index.js';
import { migrationVersions } from './db/migrate.js';
import { applyCors } from './http/cors.js';
import { apiServiceOf, notFoundBody } from './http/not-found.js';
import { sendJson } from './http/respond.js';
import { readinessHandler, serveHealth, serveMetrics } from './http/ops.js';
import { applySecurityHeaders, contentSecurityPolicy } from './http/security.js';
import { log, requestId } from './log.js';
import { observe, restDuration, signIns } from './metrics.js';
import { messagesSent, broadcastsShed } from './realtime/wire.js';
import { TESSERA_CHANNEL_POLICY } from './game/channel-policy.js';
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
export interface ServerOptions extends SiteSettings, AuthLimitSettings {
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
  /** Realtime sockets open at once per IP address (`REALTIME_MAX_SOCKETS_PER_IP`); defaults to Realtime's own. */
  maxSocketsPerIp?: number;
  /** `METRICS_TOKEN`: a bearer token that reads `/metrics` from other machines than this one. */
  metricsToken?: string;
  /** `BACKUP_EVERY`: back up into DATA_DIR/backups this often (none when unset). */
  backupEveryMs?: number;
  /** `BACKUP_KEEP`: scheduled backups kept; default {@link DEFAULT_BACKUP_KEEP}. */
  backupKeep?: number;
  /** The operator wallets (`OPERATOR_WALLETS`), written to the database at start. */
  operatorWallets?: string[];
}

/** Scheduled backups kept when BACKUP_KEEP is unset. */
export const DEFAULT_BACKUP_KEEP = 7;

/** A running server. */
export interface RunningServer {
  /** `http://localhost:<port>` */
  url: string;
  /** `DATA_DIR/service_role.key`: the secret service-role key, mode 0600, for the operator. */
  serviceRoleKeyFile: string;
  /**
   * Stops well: stops accepting connections, tells the players in chat that the server is
   * restarting, lets requests in flight finish (at most {@link DRAIN_MS}), closes Realtime and the
   * database, releases the DATA_DIR lock.
   */
  close(): Promise<void>;
  /** Settles if the embedded PostgreSQL dies under the running server. */
  lost: Promise<Error>;
}

/** Longest a stop waits for requests in flight before closing their connections. */
export const DRAIN_MS = 5000;
/** How long the restart notice has to reach the players before their sockets close. */
const NOTICE_MS = 500;
/** The chat line every connected player sees when the server stops. */
export const RESTART_NOTICE = { player_id: 'server', player_name: 'SERVER', message: 'The server is restarting. Back in a moment.' };

/** Blocks in the world are counted again no sooner than this many times the last count took (at least 1 s apart). */
const BLOCK_COUNT_SPACING = 100;

/** Paths polled by monitors every second or so: logged at `debug` only. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The status class of a status code: `2xx` … `5xx`. */
function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
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

function pathUnder(pathname: string, prefix: string): string | null {
  if (pathname === prefix) return '';
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : null;
}

/** The hosted build's `config.json` (written by `npm run build` with SUPABASE_URL set), if any. */
async function hostedConfig(publicDir: string): Promise<{ text: string; supabaseUrl: string } | null> {
  const text = await readFile(join(publicDir, 'config.json'), 'utf8').catch(() => null);
  return text === null ? null : { text, supabaseUrl: (JSON.parse(text) as { supabaseUrl: string }).supabaseUrl };
}

function sendError(req: IncomingMessage, res: ServerResponse, error: unknown, requestLog: typeof log): void {
  if (error instanceof BadPathError) {
    res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.end('Bad Request: the path is not valid percent-encoding');
    return;
  }
  const known = error instanceof RestError || error instanceof AuthError;
  const status = known ? error.status : 500;
  const code = known ? error.code : 'internal';
  const pathname = new URL(req.url ?? '/', 'http://x').pathname;
  if (known) requestLog.info({ status, code }, `${req.method} ${pathname} ${status} ${code}`);
  else requestLog.error({ status, err: error }, `${req.method} ${pathname} ${status} ${code} ${String(error)}`);
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
    const stopBanWatch = await watchBans(db, revocations, (message) => log.error(message));
    const keys = refusingEnded(await loadKeys(options.dataDir), revocations);
    const serviceRoleKeyFile = await writeServiceRoleKey(options.dataDir, keys);
    const restSchemas = options.restSchemas ?? ['public'];
    const rest: RestContext = { db, keys, catalogs: await loadCatalogs(db, restSchemas), refusals: createRefusalCache() };
    const stopSchemaWatch = await watchSchema(
      db,
      async () => {
        rest.catalogs = await loadCatalogs(db, restSchemas);
      },
      (message) => log.error(message),
    );
    const serveStatic = createStaticHandler(options.publicDir);
    const hosted = await hostedConfig(options.publicDir);
    const csp = contentSecurityPolicy(hosted?.supabaseUrl);
    const authLimits: Omit<AuthContext, 'db' | 'keys' | 'site' | 'revocations'> = {
      ...createAuthRequestLimits(options),
      signInsPerIp: createRateLimiter(options.signInsPerIp ?? DEFAULT_SIGN_INS_PER_IP, SIGN_IN_WINDOW_MS),
      signInsPerWallet: createRateLimiter(SIGN_INS_PER_WALLET, SIGN_IN_WINDOW_MS),
      signInsPerEmail: createRateLimiter(SIGN_INS_PER_EMAIL, SIGN_IN_WINDOW_MS),
    };
    // Set once listening, when the port that 0 asks for is known; no request arrives before.
    let site: Site | null = null;

    const migrations = await migrationVersions(options.migrationsDir ?? join(process.cwd(), 'supabase', 'migrations'));
    let serving = true;
    const serveReadiness = readinessHandler({ db, migrations, realtimeRunning: () => serving });

    const route = async (req: IncomingMessage, res: ServerResponse) => {
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      if (pathname === '/healthz') return serveHealth(res);
      if (pathname === '/readyz') return serveReadiness(res);
      if (pathname === '/metrics') return serveMetrics(req, res, options.metricsToken);
      const service = apiServiceOf(pathname);
      if (service) {
        if (applyCors(req, res)) return;
        const restPath = pathUnder(pathname, '/rest/v1');
        if (restPath !== null) return handleRest(req, res, restPath, rest);
        const authPath = pathUnder(pathname, '/auth/v1');
        if (authPath !== null) {
          // GoTrue names the API version of its error bodies; auth-js reads `code` only then.
          res.setHeader('X-Supabase-Api-Version', AUTH_API_VERSION);
          return handleAuth(req, res, authPath, { db, keys, site: site!, revocations, ...authLimits });
        }
        const realtimePath = pathUnder(pathname, '/realtime/v1');
        if (realtimePath !== null && (await realtime.handleHttp(req, res, realtimePath))) return;
        return sendJson(res, 404, notFoundBody(service, req, pathname));
      }
      if (pathname === '/config.json') {
        const config = hosted?.text ?? JSON.stringify({ supabaseUrl: configOrigin(req, site!, port), supabaseAnonKey: keys.anonKey });
        return sendJson(res, 200, config, { 'Cache-Control': 'no-cache', Vary: 'Host' });
      }
      return serveStatic(req, res);
    };

    /** Records a finished request: its log line, the REST histogram and the sign-in counter. */
    const finished = (req: IncomingMessage, res: ServerResponse, requestLog: typeof log, started: number) => {
      const seconds = (performance.now() - started) / 1000;
      const url = new URL(req.url ?? '/', 'http://x');
      const status = res.statusCode;
      const line = { method: req.method, path: url.pathname, status, ms: Math.round(seconds * 1000) };
      if (QUIET_PATHS.has(url.pathname)) requestLog.debug(line, 'request');
      else requestLog.info(line, 'request');
      const restPath = pathUnder(url.pathname, '/rest/v1');
      if (restPath !== null) {
        const name = restPath.split('/')[1] ?? '';
        const known = name === 'rpc' || [...rest.catalogs.values()].some((catalog) => catalog.tables.has(name));
        restDuration.observe({ method: req.method ?? 'GET', table: known ? name : 'other', status: statusClass(status) }, seconds);
      } else if (url.pathname === '/auth/v1/token' && req.method === 'POST' && ['web3', 'password'].includes(url.searchParams.get('grant_type') ?? '')) {
        signIns.inc({ result: status === 200 ? 'success' : status === 429 ? 'rate_limited' : 'refused' });
      }
    };
    const inFlight = new Set<ServerResponse>();
    const server = createServer((req, res) => {
      const id = requestId(req);
      const requestLog = log.child({ reqId: id });
      const started = performance.now();
      inFlight.add(res);
      res.once('close', () => {
        inFlight.delete(res);
        finished(req, res, requestLog, started);
      });
      res.setHeader('X-Request-Id', id);
      applySecurityHeaders(res, csp);
      route(req, res).catch((error: unknown) => sendError(req, res, error, requestLog));
    });
    const realtime = await attachRealtime(server, {
      db,
      verifyToken: (token) => keys.verify(token),
      anonKey: keys.anonKey,
      maxSocketsPerAddress: options.maxSocketsPerIp,
      policy: TESSERA_CHANNEL_POLICY,
    });
    revocations.onRevoked((sessionId) => realtime.endSession(sessionId));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    site = resolveSite(options, port);
    const sessionCleanup = startSessionCleanup(db, (message) => log.warn(message));
    let blocks = { count: 0, at: -Infinity, spacing: 0, running: null as Promise<number> | null };
    observe({
      playersOnline: () => realtime.stats().playersOnline,
      connections: () => realtime.stats().connections,
      channels: () => realtime.stats().channels,
      broadcastsShed,
      messages: () => ({ in: realtime.stats().received, out: messagesSent() }),
      pool: () => db.poolStats(),
      blocks: async () => {
        if (blocks.running || performance.now() - blocks.at < blocks.spacing) return blocks.running ?? blocks.count;
        const started = performance.now();
        blocks.running = db.query<{ n: number }>('select count(*)::int as n from public.game_blocks').then(
          ({ rows }) => rows[0]!.n,
          () => blocks.count,
        );
        const count = await blocks.running;
        const took = performance.now() - started;
        blocks = { count, at: performance.now(), spacing: Math.max(1000, took * BLOCK_COUNT_SPACING), running: null };
        return count;
      },
    });
    const stopBackups = options.backupEveryMs
      ? scheduleBackups(db.connection, options.dataDir, options.backupEveryMs, options.backupKeep ?? DEFAULT_BACKUP_KEEP)
      : async () => undefined;
    let closing: Promise<void> | null = null;
    return {
      url: `http://localhost:${port}`,
      serviceRoleKeyFile,
      lost: db.lost,
      close: () => {
        closing ??= (async () => {
          const started = performance.now();
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          if (realtime.stats().connections > 0) {
            await db.query('insert into public.game_chat_messages (player_id, player_name, message) values ($1, $2, $3)',
              [RESTART_NOTICE.player_id, RESTART_NOTICE.player_name, RESTART_NOTICE.message]).catch((error: unknown) =>
              log.warn(`the restart notice was not sent: ${(error as Error).message}`));
            await new Promise((resolve) => setTimeout(resolve, NOTICE_MS));
          }
          serving = false;
          const drainUntil = performance.now() + DRAIN_MS;
          while (inFlight.size > 0 && performance.now() < drainUntil) await new Promise((resolve) => setTimeout(resolve, 20));
          server.closeAllConnections();
          await realtime.close();
          await sessionCleanup.stop();
          await stopSchemaWatch();
          await stopBanWatch();
          await stopBackups();
          await closed;
          await db.close();
          log.info({ ms: Math.round(performance.now() - started) }, 'stopped');
        })();
        return closing;
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
