import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import type { SharedCounts } from '../cluster/shared-counts.js';
import type { Claims } from '../db/index.js';
import { pathRefusal, pathRefusalBody, requestPath } from '../http/request-path.js';
import type { Conn } from './channel.js';
import { serveConnection } from './connection.js';
import { errorMessage } from './guard.js';
import type { Hub } from './hub.js';
import { MAX_FRAME_BYTES, MAX_JOINS_PER_SECOND, MAX_MESSAGES_PER_SECOND, TokenBucket } from './limits.js';
import type { Vsn } from './protocol.js';
import { Outbound } from './wire.js';

const PATH = '/realtime/v1/websocket';
/** The error of the HTTP 429 that refuses a socket over the per-address cap. */
export const TOO_MANY_SOCKETS = 'Too many sockets from this address';

/**
 * What accepting sockets needs: the anon key, token verification, the per-address cap, the
 * client address of a request and the sockets open (or being opened) per address, over the
 * cluster when it is one.
 */
export interface SocketOptions {
  anonKey: string;
  verifyToken(token: string): Promise<Claims>;
  maxSocketsPerAddress: number;
  clientAddress(req: IncomingMessage): string;
  socketsPerAddress: SharedCounts;
}

/** The WebSocket endpoint: its open sockets, the messages they sent, and how it stops. */
export interface SocketEndpoint {
  /** Sockets open now. */
  connections(): number;
  /** Messages received over every socket so far. */
  received(): number;
  /** Stops accepting, ends every socket and resolves once the WebSocket server is closed. */
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: number, error: string): void {
  const body = JSON.stringify({ error });
  const reason = status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : status === 429 ? 'Too Many Requests' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Why a socket's key and serializer are refused (status and error), or null when they are accepted. */
async function checkSocket(url: URL, options: SocketOptions): Promise<[number, string] | null> {
  const apikey = url.searchParams.get('apikey');
  if (!apikey) return [401, 'API key is missing'];
  const vsn = url.searchParams.get('vsn') ?? '1.0.0';
  if (vsn !== '1.0.0' && vsn !== '2.0.0') return [400, `Unsupported serializer vsn ${vsn}`];
  if (apikey === options.anonKey) return null;
  try {
    await options.verifyToken(apikey);
    return null;
  } catch (error) {
    return [401, /expired/i.test((error as Error).message) ? 'Token has expired' : 'Invalid API key'];
  }
}

/** The connection of a just-opened socket, with its own outbound queue and budgets. */
function openConn(id: number, address: string, ws: WebSocket, socket: Duplex, url: URL, log: (message: string) => void): Conn {
  const outbound = new Outbound(ws, socket, (queued) => log(`realtime: closed socket #${id}: ${queued} bytes of replies and changes were left unread`));
  return {
    id,
    address,
    vsn: (url.searchParams.get('vsn') ?? '1.0.0') as Vsn,
    ws,
    apikey: url.searchParams.get('apikey')!,
    channels: new Map(),
    out: [],
    outbound,
    joins: new TokenBucket(MAX_JOINS_PER_SECOND),
    messages: new TokenBucket(MAX_MESSAGES_PER_SECOND),
  };
}

/**
 * Serves WebSocket upgrades of `server` on `/realtime/v1/websocket` (a path not in normal form,
 * `http/request-path.ts`, is a 400 before anything else reads it): at most
 * `maxSocketsPerAddress` sockets per address over the cluster (counted before the key is checked,
 * so slow checks cannot be piled up either), a key that is the anon key or a token of the project, serializer
 * vsn 1.0.0 or 2.0.0; each accepted socket is served against `hub`.
 */
export function acceptSockets(server: Server, hub: Hub, options: SocketOptions): SocketEndpoint {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  const counts = options.socketsPerAddress;
  let nextConnId = 1;
  let received = 0;

  function serve(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, address: string): void {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const id = nextConnId++;
      ws.on('message', () => received++);
      try {
        serveConnection(openConn(id, address, ws, socket, url, hub.log), hub);
      } catch (error) {
        hub.log(`realtime: serving socket #${id} failed: ${errorMessage(error)}`);
        ws.terminate();
      }
    });
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = requestPath(req.url);
    const pathRefused = pathRefusal(path);
    if (pathRefused || path !== PATH) {
      if (server.listenerCount('upgrade') === 1) refuse(socket, pathRefused ? 400 : 404, pathRefused ? pathRefusalBody(pathRefused).message : 'Not found');
      return;
    }
    const url = new URL(req.url!, 'http://localhost');
    const address = options.clientAddress(req);
    if (!(await counts.add(address, options.maxSocketsPerAddress))) return refuse(socket, 429, TOO_MANY_SOCKETS);
    // A refused, failed or finished socket closes, and is uncounted then.
    if (socket.destroyed) return counts.remove(address);
    socket.once('close', () => counts.remove(address));
    const refusal = await checkSocket(url, options);
    if (refusal) return refuse(socket, ...refusal);
    serve(req, socket, head, url, address);
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrade(req, socket, head).catch((error: unknown) => {
      hub.log(`realtime: upgrade failed: ${(error as Error).message}`);
      socket.destroy();
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    connections: () => wss.clients.size,
    received: () => received,
    async close() {
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
