import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** esbuild's content hash in a file name (`app-3GXLP2Q5.js`): such a file never changes. */
const HASHED = /-[A-Z0-9]{8}\.[a-z0-9]+$/;
/** Served from the `.br` / `.gz` file next to it when the client accepts that encoding. */
const PRECOMPRESSED = /\.(js|css|html|json|svg)$/;
/** A year, the longest max-age caches honour. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The encodings of an Accept-Encoding header with a non-zero quality. */
function acceptedEncodings(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const quality = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name && (!quality || Number(quality.slice(2)) > 0)) accepted.add(name);
  }
  return accepted;
}

async function fileInfo(path: string) {
  const info = await stat(path).catch(() => null);
  return info?.isFile() ? info : null;
}

/**
 * Serves the built client from `root` (GET and HEAD) for a path in normal form
 * (`http/request-path.ts`, so it decodes without a dot segment). Paths that name no file get
 * `index.html`, so the client-side router can answer them (including its own 404 page), except under
 * `/assets/`, where a missing file is a 404. Content-hashed files are cached for a year as
 * immutable, everything else is revalidated (`no-cache`); text files are sent precompressed
 * (brotli, else gzip) when the client accepts it.
 */
export function createStaticHandler(root: string) {
  const indexFile = join(root, 'index.html');
  return async function serveStatic(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Method Not Allowed');
      return;
    }
    const pathname = decodeURIComponent(path);
    const candidate = normalize(join(root, pathname));
    const inside = candidate.startsWith(root + sep) && !/\.(br|gz)$/.test(candidate);
    let file = inside && (await fileInfo(candidate)) ? candidate : null;
    if (!file && pathname.startsWith('/assets/')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' });
      res.end('Not Found');
      return;
    }
    file ??= indexFile;
    const headers: Record<string, string> = {
      'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'Cache-Control': HASHED.test(file) ? IMMUTABLE : 'no-cache',
    };
    let sent = file;
    if (PRECOMPRESSED.test(file)) {
      headers.Vary = 'Accept-Encoding';
      const accepted = acceptedEncodings(req.headers['accept-encoding']);
      for (const [encoding, suffix] of [['br', '.br'], ['gzip', '.gz']] as const) {
        if (accepted.has(encoding) && (await fileInfo(file + suffix))) {
          headers['Content-Encoding'] = encoding;
          sent = file + suffix;
          break;
        }
      }
    }
    const info = await fileInfo(sent);
    if (!info) {
      // No build in the public folder (yet): nothing to serve.
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' });
      res.end('Not Found');
      return;
    }
    const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
    headers.ETag = etag;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    headers['Content-Length'] = String(info.size);
    res.writeHead(200, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(sent).pipe(res);
  };
}
