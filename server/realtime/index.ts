import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Claims, Database } from '../db/index.js';
import { CHANGES_CHANNEL, captureTables, installCapture } from './capture.js';
import { loadAccess, loadTables } from './catalog.js';
import type { Access, TableInfo } from './catalog.js';
import type { Channel, Conn } from './channel.js';
import { serveConnection } from './connection.js';
import type { Hub } from './connection.js';
import { createDispatcher } from './dispatch.js';
import type { Vsn } from './protocol.js';

/** What Realtime needs from the server: the database, token verification and the anon key. */
export interface RealtimeDeps {
  db: Database;
  /** Verifies a JWT and returns its claims; throws on a bad or expired token. */
  verifyToken(token: string): Promise<Claims>;
  anonKey: string;
}

const PATH = '/realtime/v1/websocket';
const MAX_FRAME_BYTES = 8 * 1024 * 1024;

function refuse(socket: Duplex, status: number, error: string): void {
  const body = JSON.stringify({ error });
  const reason = status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Serves Supabase Realtime on `/realtime/v1/websocket` of `server`: Phoenix vsn 2.0.0 and
 * 1.0.0, heartbeat, postgres_changes under each subscriber's RLS, broadcast and token
 * updates. Installs the embedded change capture and resolves once it listens.
 */
export async function attachRealtime(server: Server, deps: RealtimeDeps): Promise<{ close(): Promise<void> }> {
  const { db, verifyToken, anonKey } = deps;
  const log = (message: string) => console.error(message);
  await installCapture(db);
  let tables = await loadTables(db);
  const accessCache = new Map<string, Promise<Access>>();
  const dispatcher = createDispatcher(db, (error) => log(`realtime: change delivery failed: ${(error as Error).message}`));
  const stopListening = await db.listen(CHANGES_CHANNEL, () => dispatcher.wake());
  const topics = new Map<string, Set<Channel>>();

  const hub: Hub = {
    verifyToken,
    lookup: {
      find: (schema, table) =>
        [...tables.values()].filter((t) => t.schema === schema && (table === undefined || table === '*' || t.name === table)),
    },
    async refreshTables() {
      await captureTables(db);
      tables = await loadTables(db);
      accessCache.clear();
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
    topics,
    log,
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== PATH) {
      if (server.listenerCount('upgrade') === 1) refuse(socket, 404, 'Not found');
      return;
    }
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
      const conn: Conn = { vsn: vsn as Vsn, ws, socket, apikey, channels: new Map(), out: [] };
      serveConnection(conn, hub);
    });
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrade(req, socket, head).catch((error: unknown) => {
      log(`realtime: upgrade failed: ${(error as Error).message}`);
      socket.destroy();
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    async close() {
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await stopListening().catch((error: unknown) => log(`realtime: unlisten failed: ${(error as Error).message}`));
      await dispatcher.idle();
    },
  };
}
