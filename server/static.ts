import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/**
 * Serves the built client from `root`. Paths that name no file get `index.html`, so the
 * client-side router can answer them (including its own 404 page).
 */
export function createStaticHandler(root: string) {
  return async function serveStatic(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const candidate = normalize(join(root, pathname));
    const inside = candidate === root || candidate.startsWith(root + sep);
    let file = join(root, 'index.html');
    if (inside) {
      const info = await stat(candidate).catch(() => null);
      if (info?.isFile()) file = candidate;
    }
    res.writeHead(200, {
      'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'Cache-Control': file.endsWith('index.html') ? 'no-cache' : 'public, max-age=60',
    });
    createReadStream(file).pipe(res);
  };
}
