import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Claims, Database } from '../db/index.js';
import { authorizeRead, authorizeSends, authorizeWrite } from './authorization.js';
import { createReloader } from '../db/reloader.js';
import { createBroadcastBatches } from './batches.js';
import { handleBroadcastApi } from './broadcast-api.js';
import { CHANGES_CHANNEL, SCHEMA_CHANNEL, captureTables, installCapture } from './capture.js';
import { loadAccess, loadTables } from './catalog.js';
import type { Access, TableInfo } from './catalog.js';
import type { Channel, Conn } from './channel.js';
import { serveConnection } from './connection.js';
import type { Hub } from './connection.js';
import { createDatabaseBroadcaster } from './database-broadcast.js';
import { createDispatcher } from './dispatch.js';
import { errorMessage, guarded } from './guard.js';
import {
  CATALOGUE_REFRESH_MS,
  MAX_API_REQUESTS_PER_ADDRESS_PER_SECOND,
  MAX_FRAME_BYTES,
  MAX_JOINS_PER_SECOND,
  MAX_MESSAGES_PER_SECOND,
  MAX_PERSISTS_PER_SECOND,
  MAX_WALLET_MESSAGES_PER_SECOND,
  MESSAGE_PRUNE_MS,
  SHED_REPORT_MS,
  KeyedBuckets,
  TokenBucket,
} from './limits.js';
import { installMessages, pruneMessages, readReplay, storeBroadcast } from './messages.js';
import type { Vsn } from './protocol.js';
import { PresenceRegistry } from './presence.js';
import { broadcastsShed, Outbound } from './wire.js';
import { log as serverLog } from '../log.js';

/** What Realtime needs from the server: the database, token verification and the anon key. */
export interface RealtimeDeps {
  db: Database;
  /** Verifies a JWT and returns its claims; throws on a bad or expired token. */
  verifyToken(token: string): Promise<Claims>;
  anonKey: string;
  /** Sockets open at once per client IP address; defaults to {@link DEFAULT_MAX_SOCKETS_PER_ADDRESS}. */
  maxSocketsPerAddress?: number;
}

/**
 * Sockets one IP address may hold open at once unless configured (`REALTIME_MAX_SOCKETS_PER_IP`).
 * Every per-socket bound (channels, queued bytes, messages a second) multiplies by it; 200 lets
 * a school or office of a couple of hundred players share one address, one socket each.
 */
export const DEFAULT_MAX_SOCKETS_PER_ADDRESS = 200;
/** The error of the HTTP 429 that refuses a socket over the per-address cap. */
export const TOO_MANY_SOCKETS = 'Too many sockets from this address';

/** The attached Realtime service. */
export interface RealtimeServer {
  /**
   * Serves an HTTP request for `path` under `/realtime/v1` (the broadcast REST API); false when
   * no route matches, for the caller to answer with a 404.
   */
  handleHttp(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean>;
  /** Closes every channel joined with a token of `sessionId` (its session ended). */
  endSession(sessionId: string): void;
  /** What the metrics read: open sockets, joined channels, distinct signed-in users with a channel, messages received. */
  stats(): { connections: number; channels: number; playersOnline: number; received: number };
  /** Closes every socket and stops listening for changes. */
  close(): Promise<void>;
}

const PATH = '/realtime/v1/websocket';
/** How often the wallet and address budgets that are full again are forgotten. */
const BUDGET_SWEEP_MS = 10_000;

function refuse(socket: Duplex, status: number, error: string): void {
  const body = JSON.stringify({ error });
  const reason = status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : status === 429 ? 'Too Many Requests' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Serves Supabase Realtime on `/realtime/v1/websocket` of `server`: Phoenix vsn 2.0.0 and
 * 1.0.0, heartbeat, postgres_changes under each subscriber's RLS, broadcast (also from the
 * database, stored and replayed) and token updates. Installs the embedded change capture and
 * message capture, removes old stored messages every MESSAGE_PRUNE_MS, and resolves once it listens.
 */
export async function attachRealtime(server: Server, deps: RealtimeDeps): Promise<RealtimeServer> {
  const { db, verifyToken, anonKey } = deps;
  const maxSocketsPerAddress = deps.maxSocketsPerAddress ?? DEFAULT_MAX_SOCKETS_PER_ADDRESS;
  /** Sockets open or being opened per address; an address with none is removed. */
  const socketsPerAddress = new Map<string, number>();
  const releaseSocket = (address: string) => {
    const left = socketsPerAddress.get(address)! - 1;
    if (left > 0) socketsPerAddress.set(address, left);
    else socketsPerAddress.delete(address);
  };
  const log = (message: string) => serverLog.warn(message);
  await installCapture(db);
  await installMessages(db);
  let tables = await loadTables(db);
  const accessCache = new Map<string, Promise<Access>>();
  const topics = new Map<string, Set<Channel>>();
  const batches = createBroadcastBatches(topics);
  const dispatcher = createDispatcher(
    db,
    (error) => log(`realtime: change delivery failed: ${(error as Error).message}`),
    createDatabaseBroadcaster(topics, batches, log),
  );
  const stopListening = await db.listen(CHANGES_CHANNEL, () => dispatcher.wake());
  const stopWatching = await db.listen(SCHEMA_CHANNEL, () => void catalogue.run());
  const persistBudget = new TokenBucket(MAX_PERSISTS_PER_SECOND);
  let pruning: Promise<void> = Promise.resolve();
  const prune = () => {
    pruning = pruneMessages(db)
      .then(() => undefined)
      .catch((error: unknown) => log(`realtime: removing old messages failed: ${(error as Error).message}`));
  };
  prune();
  const pruner = setInterval(prune, MESSAGE_PRUNE_MS).unref();
  const walletBudgets = new KeyedBuckets(MAX_WALLET_MESSAGES_PER_SECOND);
  const addressBudgets = new KeyedBuckets(MAX_API_REQUESTS_PER_ADDRESS_PER_SECOND);
  const sweep = setInterval(guarded('the budget sweep', () => {
    walletBudgets.forgetFull();
    addressBudgets.forgetFull();
  }), BUDGET_SWEEP_MS).unref();
  // Shedding is told when it starts, within a second, then at most every SHED_REPORT_MS while it goes on.
  let shedReported = broadcastsShed();
  let shedReportedAt = -Infinity;
  const shedWatch = setInterval(guarded('the shed report', () => {
    const now = performance.now();
    const total = broadcastsShed();
    if (total === shedReported || now - shedReportedAt < SHED_REPORT_MS) return;
    log(`realtime: shed ${total - shedReported} broadcasts: sockets behind kept only the newest of each sender's stream`);
    shedReported = total;
    shedReportedAt = now;
  }), 1000).unref();
  let lastRefresh = performance.now();
  /** Re-reads the published tables; a call while one runs makes it read once more after. */
  const catalogue = createReloader(
    async () => {
      try {
        await captureTables(db);
        tables = await loadTables(db);
        accessCache.clear();
      } finally {
        lastRefresh = performance.now();
      }
    },
    (error) => log(`realtime: catalogue refresh failed: ${(error as Error).message}`),
  );
  let nextConnId = 1;
  let received = 0;

  const hub: Hub = {
    verifyToken,
    lookup: {
      find: (schema, table) =>
        [...tables.values()].filter((t) => t.schema === schema && (table === undefined || table === '*' || t.name === table)),
    },
    refreshTablesSoon() {
      if (!catalogue.running() && performance.now() - lastRefresh >= CATALOGUE_REFRESH_MS) void catalogue.run();
    },
    catalogueSettled: () => catalogue.running() ?? Promise.resolve(),
    authorizeRead: (claims, topic) => authorizeRead(db, claims, topic),
    authorizeWrite: (claims, topic, extension) => authorizeWrite(db, claims, topic, extension),
    replay: (topic, since, limit) => readReplay(db, topic, since, limit),
    async persist(topic, item) {
      if (!persistBudget.take()) {
        log(`realtime: a broadcast on ${topic} was not stored: more than ${MAX_PERSISTS_PER_SECOND} a second`);
        return null;
      }
      try {
        return await storeBroadcast(db, topic, item);
      } catch (error) {
        log(`realtime: storing a broadcast on ${topic} failed: ${(error as Error).message}`);
        return null;
      }
    },
    takeWalletMessage(wallet, count = 1) {
      return walletBudgets.take(wallet, count);
    },
    access(role: string, table: TableInfo) {
      const key = `${role}\0${table.oid}`;
      let access = accessCache.get(key);
      if (!access) {
        access = loadAccess(db, table, role);
        accessCache.set(key, access);
        access.catch(() => accessCache.delete(key));
      }
      return access;
    },
    dispatcher,
    batches,
    topics,
    presence: new PresenceRegistry(),
    sessionEnders: new Set(),
    log,
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== PATH) {
      if (server.listenerCount('upgrade') === 1) refuse(socket, 404, 'Not found');
      return;
    }
    // Counted from here, before the key is checked, so that slow checks cannot be piled up either.
    const address = req.socket.remoteAddress ?? '';
    const open = socketsPerAddress.get(address) ?? 0;
    if (open >= maxSocketsPerAddress) return refuse(socket, 429, TOO_MANY_SOCKETS);
    socketsPerAddress.set(address, open + 1);
    // A refused, failed or finished socket closes, and is uncounted then.
    socket.once('close', () => releaseSocket(address));
    await accept(req, socket, head, url);
  }

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void> {
    const apikey = url.searchParams.get('apikey');
    if (!apikey) return refuse(socket, 401, 'API key is missing');
    const vsn = url.searchParams.get('vsn') ?? '1.0.0';
    if (vsn !== '1.0.0' && vsn !== '2.0.0') return refuse(socket, 400, `Unsupported serializer vsn ${vsn}`);
    if (apikey !== anonKey) {
      try {
        await verifyToken(apikey);
      } catch (error) {
        return refuse(socket, 401, /expired/i.test((error as Error).message) ? 'Token has expired' : 'Invalid API key');
      }
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const id = nextConnId++;
      ws.on('message', () => received++);
      const outbound = new Outbound(ws, socket, (queued) =>
        log(`realtime: closed socket #${id}: ${queued} bytes of replies and changes were left unread`),
      );
      const conn: Conn = {
        id,
        vsn: vsn as Vsn,
        ws,
        apikey,
        channels: new Map(),
        out: [],
        outbound,
        joins: new TokenBucket(MAX_JOINS_PER_SECOND),
        messages: new TokenBucket(MAX_MESSAGES_PER_SECOND),
      };
      try {
        serveConnection(conn, hub);
      } catch (error) {
        log(`realtime: serving socket #${id} failed: ${errorMessage(error)}`);
        ws.terminate();
      }
    });
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrade(req, socket, head).catch((error: unknown) => {
      log(`realtime: upgrade failed: ${(error as Error).message}`);
      socket.destroy();
    });
  };
  server.on('upgrade', onUpgrade);

  const api = {
    hub,
    anonKey,
    verifyToken,
    authorizeSends: (claims: Claims, topics: Iterable<string>, persistTopics: Iterable<string>) => authorizeSends(db, claims, topics, persistTopics),
    takeAddressRequest: (address: string) => addressBudgets.take(address),
  };

  return {
    handleHttp: (req, res, path) => handleBroadcastApi(req, res, path, api),
    endSession(sessionId) {
      for (const end of hub.sessionEnders) end(sessionId);
    },
    stats() {
      let channels = 0;
      const players = new Set<string>();
      for (const members of topics.values()) {
        channels += members.size;
        for (const channel of members) if (channel.claims.role === 'authenticated' && channel.claims.sub) players.add(channel.claims.sub);
      }
      return { connections: wss.clients.size, channels, playersOnline: players.size, received };
    },
    async close() {
      clearInterval(sweep);
      clearInterval(pruner);
      clearInterval(shedWatch);
      batches.close();
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await stopListening().catch((error: unknown) => log(`realtime: unlisten failed: ${(error as Error).message}`));
      await stopWatching().catch((error: unknown) => log(`realtime: unlisten failed: ${(error as Error).message}`));
      await dispatcher.idle();
      await pruning;
    },
  };
}
