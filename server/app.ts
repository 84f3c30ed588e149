import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { AuthError } from './auth/errors.js';
import { handleAuth } from './auth/handler.js';
import { loadKeys, type TokenKeys } from './auth/keys.js';
import { startDatabase } from './db/index.js';
import { applyCors } from './http/cors.js';
import { requestOrigin, sendJson } from './http/respond.js';
import { attachRealtime } from './realtime/index.js';
import { loadCatalog } from './rest/catalog.js';
import { RestError } from './rest/errors.js';
import { handleRest, type RestContext } from './rest/handler.js';
import { createRefusalCache } from './rest/refusals.js';
import { createStaticHandler } from './static.js';

/** Where the server listens, keeps its data and finds the built client. */
export interface ServerOptions {
  port: number;
  dataDir: string;
  distDir: string;
  /** Folder of the migrations; defaults to `supabase/migrations` under the working directory. */
  migrationsDir?: string;
  /** Host to bind; defaults to all interfaces. */
  host?: string;
}

/** A running server. */
export interface RunningServer {
  /** `http://localhost:<port>` */
  url: string;
  /** Stops accepting connections, closes Realtime and the database, releases the DATA_DIR lock. */
  close(): Promise<void>;
}

function pathUnder(pathname: string, prefix: string): string | null {
  if (pathname === prefix) return '';
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : null;
}

async function configJson(req: IncomingMessage, distDir: string, keys: TokenKeys): Promise<string> {
  const hosted = await readFile(join(distDir, 'config.json'), 'utf8').catch(() => null);
  return hosted ?? JSON.stringify({ supabaseUrl: requestOrigin(req), supabaseAnonKey: keys.anonKey });
}

function sendError(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  const known = error instanceof RestError || error instanceof AuthError;
  const status = known ? error.status : 500;
  const code = known ? error.code : 'internal';
  const pathname = new URL(req.url ?? '/', 'http://x').pathname;
  console.error(`${req.method} ${pathname} ${status} ${code}${known ? '' : ` ${String(error)}`}`);
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers = error instanceof RestError ? error.headers : {};
  sendJson(res, status, known ? error.body() : { code: 'internal', message: 'Internal server error' }, headers);
}

/**
 * Starts Tessera's embedded backend: locks `dataDir`, opens PGlite, applies the migrations,
 * attaches Realtime and serves `/rest/v1`, `/auth/v1`, `/realtime/v1/websocket`,
 * `/config.json` and the built client from `distDir` on `port` (0 picks a free port).
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const db = await startDatabase(options.dataDir, options.migrationsDir ?? join(process.cwd(), 'supabase', 'migrations'));
  try {
    const keys = await loadKeys(options.dataDir);
    const rest: RestContext = { db, keys, catalog: await loadCatalog(db), refusals: createRefusalCache() };
    const serveStatic = createStaticHandler(options.distDir);

    const route = async (req: IncomingMessage, res: ServerResponse) => {
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      const restPath = pathUnder(pathname, '/rest/v1');
      const authPath = pathUnder(pathname, '/auth/v1');
      if (restPath !== null || authPath !== null) {
        if (applyCors(req, res)) return;
        if (restPath !== null) return handleRest(req, res, restPath, rest);
        return handleAuth(req, res, authPath!, db, keys);
      }
      if (pathname === '/config.json') return sendJson(res, 200, await configJson(req, options.distDir, keys), { 'Cache-Control': 'no-cache' });
      return serveStatic(req, res);
    };

    const server = createServer((req, res) => {
      route(req, res).catch((error: unknown) => sendError(req, res, error));
    });
    const realtime = await attachRealtime(server, { db, verifyToken: (token) => keys.verify(token), anonKey: keys.anonKey });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://localhost:${port}`,
      close: async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await realtime.close();
        await closed;
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
