import { createServer, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isIP, type AddressInfo } from 'node:net';
import { PRESENCE_HEARTBEAT_MS } from '../protocol/rules.js';
import { watchBans } from './auth/bans.js';
import type { AuthContext } from './auth/handler.js';
import { loadKeys, SECRET_FILE, writeServiceRoleKey } from './auth/keys.js';
import { createAuthRequestLimits, type AuthLimitSettings } from './auth/limits.js';
import { syncOperators } from './auth/operators.js';
import { windowLimiter } from './auth/shared-limits.js';
import { startSessionCleanup } from './auth/cleanup.js';
import { loadRevocations, refusingEnded } from './auth/revocations.js';
import { requireSharedSite, resolveSite, type ConfigError, type SiteSettings } from './auth/site.js';
import { scheduleBackups } from './backup/schedule.js';
import { budgetStore, type BudgetStore } from './cluster/budget-store.js';
import { createSharedCounts } from './cluster/shared-counts.js';
import { joinCluster, type Bus } from './cluster/index.js';
import { spacedBlockCount } from './block-count.js';
import { startDatabase, type ServerDatabase } from './db/index.js';
import { migrationVersions } from './db/migrate.js';
import { clientAddresses, type AddressRange, type ClientAddresses } from './http/client-address.js';
import { readinessHandler } from './http/ops.js';
import { applySecurityHeaders, contentSecurityPolicy } from './http/security.js';
import { log, requestId } from './log.js';
import { observe } from './metrics.js';
import { messagesSent, broadcastsShedByKind } from './realtime/wire.js';
import { TESSERA_CHANNEL_POLICY } from './game/channel-policy.js';
import { attachRealtime } from './realtime/index.js';
import { loadCatalogs } from './rest/catalog.js';
import { watchSchema } from './rest/schema-watch.js';
import type { RestContext } from './rest/handler.js';
import { createCallerGate } from './rest/gate.js';
import { createRefusalCache } from './rest/refusals.js';
import { recordRequest } from './request-log.js';
import { route, sendError, type Routes } from './routes.js';
import { createStaticHandler } from './static.js';

/** Web3 sign-ins allowed per IP address in {@link SIGN_IN_WINDOW_MS} unless configured (the Supabase CLI's `[auth.rate_limit] web3`). */
export const DEFAULT_SIGN_INS_PER_IP = 30;
/** Web3 sign-ins allowed per wallet in {@link SIGN_IN_WINDOW_MS}: a player reloading now and then stays far below it. */
export const SIGN_INS_PER_WALLET = 10;
/** Password sign-ins allowed per email address in {@link SIGN_IN_WINDOW_MS}, failed ones included: a bound on guessing one account's password. */
export const SIGN_INS_PER_EMAIL = 10;
/** The window of the sign-in rate limits: 5 minutes, as hosted Supabase counts them. */
export const SIGN_IN_WINDOW_MS = 5 * 60 * 1000;

/** Where the server listens, keeps its data and finds the built client, and the site it signs players in for. */
export interface ServerOptions extends SiteSettings, AuthLimitSettings {
  port: number;
  dataDir: string;
  /** The public folder of the built client (`dist/public`): everything in it is served. */
  publicDir: string;
  /** Folder of the migrations; defaults to `supabase/migrations` under the working directory. */
  migrationsDir?: string;
  /** `HOST`: the address to bind; defaults to every interface. */
  host?: string;
  /** `TRUSTED_PROXIES`: the proxies whose `X-Forwarded-For` is believed (`http/client-address.ts`); none by default. */
  trustedProxies?: AddressRange[];
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
  /** `REDIS_URL`: join the cluster whose nodes meet on this Redis (docs/cluster.md); a cluster of one without it. */
  redisUrl?: string;
  /** `NODE_ID`: this node's name in the cluster and on its metrics; host, process and a random part by default. */
  nodeId?: string;
}

/** Scheduled backups kept when BACKUP_KEEP is unset. */
export const DEFAULT_BACKUP_KEEP = 7;

/** A running server. */
export interface RunningServer {
  /** `http://localhost:<port>`, or the `HOST` address in place of `localhost` when one is bound. */
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

/** The hosted build's `config.json` (written by `npm run build` with SUPABASE_URL set), if any. */
async function hostedConfig(publicDir: string): Promise<{ text: string; supabaseUrl: string } | null> {
  const text = await readFile(join(publicDir, 'config.json'), 'utf8').catch(() => null);
  return text === null ? null : { text, supabaseUrl: (JSON.parse(text) as { supabaseUrl: string }).supabaseUrl };
}

/** What the start log says of the signing secret. */
const SECRET_SOURCES = {
  database: null,
  imported: `auth: the signing secret of DATA_DIR/${SECRET_FILE} is now the one every node shares (auth.jwt_secret)`,
  created: 'auth: a new signing secret, shared by every node (auth.jwt_secret)',
} as const;

/**
 * Starts Auth over the database: loads the ended sessions (shared with the other nodes on
 * `bus`), writes the operator wallets, watches bans, loads the token keys the nodes share
 * (refusing ended sessions' tokens) and writes the service-role key.
 */
async function startAuth(db: ServerDatabase, options: ServerOptions, bus: Bus) {
  const revocations = await loadRevocations(db, bus, (message) => log.warn(message));
  await syncOperators(db, options.operatorWallets ?? []);
  const stopBanWatch = await watchBans(db, revocations, (message) => log.error(message));
  const loaded = await loadKeys(db, options.dataDir);
  if (SECRET_SOURCES[loaded.source]) log.info(SECRET_SOURCES[loaded.source]);
  const keys = refusingEnded(loaded, revocations);
  const serviceRoleKeyFile = await writeServiceRoleKey(options.dataDir, keys);
  return { revocations, stopBanWatch, keys, serviceRoleKeyFile };
}

/**
 * Starts REST over the database: loads the catalogs of the exposed schemas and reloads them
 * whenever the schema changes; callers' turns are counted over the cluster in `budgets`.
 */
async function startRest(db: ServerDatabase, keys: RestContext['keys'], clients: ClientAddresses, options: ServerOptions, budgets: BudgetStore | null) {
  const restSchemas = options.restSchemas ?? ['public'];
  const turns = createSharedCounts(budgets, 'rest-turns');
  const rest: RestContext = { db, keys, catalogs: await loadCatalogs(db, restSchemas), refusals: createRefusalCache(), clients, gate: createCallerGate(turns) };
  const stopSchemaWatch = await watchSchema(
    db,
    async () => {
      rest.catalogs = await loadCatalogs(db, restSchemas);
    },
    (message) => log.error(message),
  );
  return { rest, stopSchemaWatch, stopTurns: async () => turns.stop() };
}

/** Auth's limits: its request limits and the sign-in rates per IP address, wallet and email address, over the cluster in `store` when it is one. */
function authLimits(options: ServerOptions, store: BudgetStore | null): Omit<AuthContext, 'db' | 'keys' | 'site' | 'revocations' | 'clients'> {
  return {
    ...createAuthRequestLimits(options, store),
    signInsPerIp: windowLimiter(store, 'sign-in-ip', options.signInsPerIp ?? DEFAULT_SIGN_INS_PER_IP, SIGN_IN_WINDOW_MS),
    signInsPerWallet: windowLimiter(store, 'sign-in-wallet', SIGN_INS_PER_WALLET, SIGN_IN_WINDOW_MS),
    signInsPerEmail: windowLimiter(store, 'sign-in-email', SIGN_INS_PER_EMAIL, SIGN_IN_WINDOW_MS),
  };
}

/**
 * An HTTP server that answers each request through `routes` with a request id and the security
 * headers, logs and measures it when it ends, and keeps it in `inFlight` until then.
 */
function createHttpServer(routes: Routes, csp: string, inFlight: Set<ServerResponse>): Server {
  const recording = { rest: routes.rest, clients: routes.clients };
  const server = createServer((req, res) => {
    const id = requestId(req);
    const started = performance.now();
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      recordRequest(req, res, id, started, recording);
    });
    res.setHeader('X-Request-Id', id);
    applySecurityHeaders(res, csp);
    route(req, res, routes).catch((error: unknown) => sendError(req, res, error, log.child({ reqId: id })));
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

/**
 * How long an idle keep-alive connection stays open: four presence heartbeats. Node's default,
 * 5 s, is one heartbeat's period (PRESENCE_HEARTBEAT_MS), so a player's connection was closed just
 * as its next heartbeat came: about half of a crowd's heartbeats opened a connection of their own,
 * and one that met the closing socket was reset. Holding an idle connection longer gives a client
 * nothing it could not keep under any timeout by sending a request every few seconds.
 */
const KEEP_ALIVE_TIMEOUT_MS = 4 * PRESENCE_HEARTBEAT_MS;

/** The host of {@link RunningServer.url}: `localhost` when listening on every interface, else the bound address (IPv6 in brackets). */
function urlHost(host: string | undefined): string {
  if (!host || host === '0.0.0.0' || host === '::') return 'localhost';
  return isIP(host) === 6 ? `[${host}]` : host;
}

/**
 * Connections the kernel holds for the server until it accepts them (capped by the system's
 * `net.core.somaxconn`). Node's default, 511, overflows when a world's players all come back at
 * once (a restart: each opens a socket and a few REST connections) while the server is busy:
 * the kernel then drops their handshakes, and clients wait for retransmissions or are reset.
 */
const LISTEN_BACKLOG = 4096;

/** Listens on `port` (0 picks a free one) and resolves with the port listened on. */
async function listen(server: Server, port: number, host: string | undefined): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** The running Realtime server. */
type Realtime = Awaited<ReturnType<typeof attachRealtime>>;

/** Gives `/metrics` its readers: Realtime's counts, the pool's and the world's blocks. */
function observeServer(db: ServerDatabase, realtime: Realtime): void {
  observe({
    playersOnline: () => realtime.stats().playersOnline,
    connections: () => realtime.stats().connections,
    channels: () => realtime.stats().channels,
    broadcastsShed: broadcastsShedByKind,
    messages: () => ({ in: realtime.stats().received, out: messagesSent() }),
    pool: () => db.poolStats(),
    blocks: spacedBlockCount(db),
  });
}

/** Tells every player in chat that the server is restarting, and gives the line {@link NOTICE_MS} to reach them. */
async function sendRestartNotice(db: ServerDatabase): Promise<void> {
  await db.query('insert into public.game_chat_messages (player_id, player_name, message) values ($1, $2, $3)',
    [RESTART_NOTICE.player_id, RESTART_NOTICE.player_name, RESTART_NOTICE.message]).catch((error: unknown) =>
    log.warn(`the restart notice was not sent: ${(error as Error).message}`));
  await new Promise((resolve) => setTimeout(resolve, NOTICE_MS));
}

/** Waits until no request is in flight, at most {@link DRAIN_MS}. */
async function drain(inFlight: ReadonlySet<ServerResponse>): Promise<void> {
  const drainUntil = performance.now() + DRAIN_MS;
  while (inFlight.size > 0 && performance.now() < drainUntil) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** What a stop closes. */
interface Stoppable {
  server: Server;
  inFlight: ReadonlySet<ServerResponse>;
  realtime: Realtime;
  db: ServerDatabase;
  /** Called once the restart notice is out: readiness then answers that Realtime is not running. */
  stopServing: () => void;
  /** The background work stopped after Realtime closes, in this order. */
  stops: readonly (() => Promise<void>)[];
}

/** The stop of {@link RunningServer.close}, in its order. */
async function stopGracefully({ server, inFlight, realtime, db, stopServing, stops }: Stoppable): Promise<void> {
  const started = performance.now();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  if (realtime.stats().connections > 0) await sendRestartNotice(db);
  stopServing();
  await drain(inFlight);
  server.closeAllConnections();
  await realtime.close();
  for (const stop of stops) await stop();
  await closed;
  await db.close();
  log.info({ ms: Math.round(performance.now() - started) }, 'stopped');
}

/**
 * Starts Tessera's embedded backend: locks `dataDir`, starts PostgreSQL there (or connects to
 * `databaseUrl`), applies the migrations,
 * attaches Realtime and serves `/rest/v1`, `/auth/v1`, `/realtime/v1/websocket`, the Realtime
 * broadcast API (`/realtime/v1/api/broadcast`),
 * `/config.json` and the built client from `publicDir` on `port` (0 picks a free port), and
 * writes the service-role key to `dataDir` (never served). Any
 * other path under an API prefix is a JSON 404 in the owning service's shape, and a path not in
 * normal form a 400 before anything reads it (`http/request-path.ts`); every answer
 * carries the security headers of `http/security.ts`. Sign-in is bound to `siteUrl` (default:
 * this server's loopback origins) and the allow-list; throws {@link ConfigError} for a
 * malformed URL before anything starts.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  // Checks the URLs before the database starts; the real port is known once listening.
  resolveSite(options, options.port);
  requireSharedSite(options, options.redisUrl !== undefined);
  const migrationsDir = options.migrationsDir ?? join(process.cwd(), 'supabase', 'migrations');
  const bus = await joinCluster(options.redisUrl, options.nodeId, (message) => log.warn(message));
  const db = await startDatabase({
    dataDir: options.dataDir,
    migrationsDir,
    databaseUrl: options.databaseUrl,
    poolSize: options.poolSize,
  });
  try {
    return await serve(db, bus, options, migrationsDir);
  } catch (error) {
    await db.close();
    await bus.close();
    throw error;
  }
}

/** Starts Auth, REST and Realtime over the started database and serves them (see {@link startServer}). */
async function serve(db: ServerDatabase, bus: Bus, options: ServerOptions, migrationsDir: string): Promise<RunningServer> {
  const { revocations, stopBanWatch, keys, serviceRoleKeyFile } = await startAuth(db, options, bus);
  const clients = clientAddresses(options.trustedProxies);
  const budgets = budgetStore(bus, (message) => log.warn(message));
  const { rest, stopSchemaWatch, stopTurns } = await startRest(db, keys, clients, options, budgets);
  const hosted = await hostedConfig(options.publicDir);
  let serving = true;
  const routes: Routes = {
    metricsToken: options.metricsToken,
    clients,
    serveReadiness: readinessHandler({ db, migrations: await migrationVersions(migrationsDir), realtimeRunning: () => serving, bus }),
    serveStatic: createStaticHandler(options.publicDir),
    rest,
    auth: { db, keys, revocations, clients, ...authLimits(options, budgets) },
    hostedConfig: hosted?.text ?? null,
    // Set once listening, when the port that 0 asks for is known; no request arrives before.
    site: null,
    port: 0,
    realtime: null,
  };
  const inFlight = new Set<ServerResponse>();
  const server = createHttpServer(routes, contentSecurityPolicy(hosted?.supabaseUrl), inFlight);
  const realtime = await attachRealtime(server, {
    db,
    verifyToken: (token) => keys.verify(token),
    anonKey: keys.anonKey,
    maxSocketsPerAddress: options.maxSocketsPerIp,
    clientAddress: clients.of,
    policy: TESSERA_CHANNEL_POLICY,
    bus,
    budgets,
  });
  routes.realtime = (req, res, path) => realtime.handleHttp(req, res, path);
  revocations.onRevoked((sessionId) => realtime.endSession(sessionId));
  routes.port = await listen(server, options.port, options.host);
  routes.site = resolveSite(options, routes.port);
  const sessionCleanup = startSessionCleanup(db, (message) => log.warn(message));
  observeServer(db, realtime);
  const stopBackups = options.backupEveryMs
    ? scheduleBackups(db.connection, options.dataDir, options.backupEveryMs, options.backupKeep ?? DEFAULT_BACKUP_KEEP)
    : async () => undefined;
  const stops = [() => sessionCleanup.stop(), stopSchemaWatch, stopBanWatch, stopBackups, stopTurns, () => bus.close()];
  let closing: Promise<void> | null = null;
  return {
    url: `http://${urlHost(options.host)}:${routes.port}`,
    serviceRoleKeyFile,
    lost: db.lost,
    close: () => (closing ??= stopGracefully({ server, inFlight, realtime, db, stopServing: () => (serving = false), stops })),
  };
}
