import { Agent, request } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PRESENCE_HEARTBEAT_MS } from '../../../protocol/rules.js';
import { startTestServer, type TestServer } from '../../support/harness.js';
import { sleep } from '../../support/wait.js';

let server: TestServer;
/** The built client's files, as `npm run build` wrote them. */
let assets: string[];

test.before(async () => {
  server = await startTestServer();
  assets = await readdir('dist/public/assets');
});

test.after(async () => {
  await server.stop();
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One HTTP request with exactly these headers (no automatic decompression, unlike fetch). */
function raw(path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const json = (response: RawResponse) => JSON.parse(response.body.toString('utf8')) as unknown;
const asset = (pattern: RegExp) => assets.find((file) => pattern.test(file))!;

test('only the client is public: the server bundle and source maps are not served', async () => {
  const page = await raw('/');
  for (const path of ['/server.mjs', '/server.mjs.map', '/dist/server.mjs', '/../server.mjs', '/%2e%2e/server.mjs', '/public/index.html']) {
    const response = await raw(path);
    assert.ok(!response.body.toString().includes('startServer'), `${path} is not the server bundle`);
    assert.equal(response.body, page.body, `${path} answers the web app's page`);
  }
  for (const path of ['/assets/app.js.map', `/assets/${asset(/^app-.*\.js$/)}.map`, '/assets/server.mjs', '/assets/app.js']) {
    const response = await raw(path);
    assert.is(response.status, 404, path);
    assert.is(response.body.toString(), 'Not Found');
  }
  assert.not.ok(assets.some((file) => file.endsWith('.map')), 'a production build writes no source maps');
  const entry = await raw(`/assets/${asset(/^app-.*\.js$/)}`);
  assert.is(entry.status, 200);
  assert.is(entry.headers['content-type'], 'text/javascript; charset=utf-8');
});

test('a bad percent-escape is 400, for the site and for REST', async () => {
  const invalid = { code: 'invalid_path', message: 'The request path is not in normal form: invalid percent-encoding' };
  for (const path of ['/%ZZ', '/assets/%E0%A4%A', '/%', '/rest/v1/%ZZ', '/rest/v1/rpc/%ZZ']) {
    const response = await raw(path, { headers: { apikey: server.anonKey } });
    assert.is(response.status, 400, path);
    assert.equal(json(response), invalid, path);
  }
  const named = await raw('/%C3%A9t%C3%A9');
  assert.is(named.status, 200, 'a needed escape is served');
  assert.equal(named.body, (await raw('/')).body, "the web app's page");
});

test('every answer carries the security headers', async () => {
  const answers = await Promise.all([
    raw('/'),
    raw(`/assets/${asset(/^styles-.*\.css$/)}`),
    raw('/config.json'),
    raw('/%ZZ'),
    raw('/assets/missing.js'),
    raw('/rest/v1/game_blocks', { headers: { apikey: server.anonKey } }),
    raw('/rest/v1/game_blocks'),
    raw('/auth/v1/user'),
    raw('/storage/v1/bucket'),
    raw('/rest/v1/game_blocks', { method: 'OPTIONS', headers: { origin: 'http://example.test' } }),
  ]);
  for (const response of answers) {
    assert.is(response.headers['x-content-type-options'], 'nosniff');
    assert.is(response.headers['referrer-policy'], 'no-referrer');
    assert.is(response.headers['x-frame-options'], 'DENY');
    assert.is(
      response.headers['content-security-policy'],
      "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; font-src 'self'; manifest-src 'self'; worker-src 'self'; " +
        "img-src 'self' data:; media-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; " +
        "object-src 'none'; frame-ancestors 'none'",
    );
  }
});

test('unknown API paths are JSON 404s in each service shape, never the web app', async () => {
  const cases: [string, string, Record<string, string>, unknown][] = [
    ['GET', '/rest/v1/game_blocks/extra', { apikey: server.anonKey }, { code: 'PGRST125', details: null, hint: null, message: 'Invalid path specified in request URL' }],
    ['GET', '/rest/v1/', { apikey: server.anonKey }, { code: 'PGRST125', details: null, hint: null, message: 'Invalid path specified in request URL' }],
    ['GET', '/rest/v2/game_blocks', {}, { code: 'PGRST125', details: null, hint: null, message: 'Invalid path specified in request URL' }],
    ['GET', '/auth/v1/settings', {}, { code: 404, error_code: 'not_found', msg: 'Not found' }],
    ['POST', '/auth/v1/otp', { 'x-supabase-api-version': '2024-01-01' }, { code: 'not_found', message: 'Not found' }],
    ['GET', '/realtime/v1/api/broadcast', { apikey: server.anonKey }, { message: 'Not Found' }],
    ['GET', '/realtime/v1/nope', {}, { message: 'Not Found' }],
    ['GET', '/storage/v1/object/public/avatars/a.png', {}, { statusCode: 404, error: 'Not Found', message: 'Route GET:/storage/v1/object/public/avatars/a.png not found' }],
    ['POST', '/storage/v1/bucket', {}, { statusCode: 404, error: 'Not Found', message: 'Route POST:/storage/v1/bucket not found' }],
    ['POST', '/functions/v1/hello-world', {}, { code: 'NOT_FOUND', message: 'Requested function was not found' }],
    ['GET', '/functions', {}, { code: 'NOT_FOUND', message: 'Requested function was not found' }],
  ];
  for (const [method, path, headers, body] of cases) {
    const response = await raw(path, { method, headers });
    assert.is(response.status, 404, `${method} ${path}`);
    assert.is(response.headers['content-type'], 'application/json; charset=utf-8', `${method} ${path}`);
    assert.equal(json(response), body, `${method} ${path}`);
  }
  // The honest controls: the same services' real routes still answer.
  assert.is((await raw('/rest/v1/game_blocks', { headers: { apikey: server.anonKey } })).status, 200);
  assert.is((await raw('/auth/v1/user')).status, 401);
  assert.is((await raw('/restaurant')).status, 200, 'a web-app path that only starts like an API prefix is the page');
});

test('hashed files are immutable for a year, the page and config are revalidated', async () => {
  const hashed = [asset(/^app-.*\.js$/), asset(/^styles-.*\.css$/), asset(/\.woff2$/), asset(/^game-screen-.*\.js$/)];
  for (const file of hashed) {
    assert.is((await raw(`/assets/${file}`)).headers['cache-control'], 'public, max-age=31536000, immutable', file);
  }
  for (const path of ['/', '/index.html', '/some/route', '/config.json']) {
    assert.is((await raw(path)).headers['cache-control'], 'no-cache', path);
  }
  const page = await raw('/');
  const again = await raw('/', { headers: { 'if-none-match': String(page.headers.etag) } });
  assert.is(again.status, 304);
  assert.is(again.body.length, 0);
});

test('text files are sent precompressed by Accept-Encoding: brotli first, then gzip, else identity', async () => {
  const file = asset(/^app-.*\.js$/);
  const original = await readFile(`dist/public/assets/${file}`);
  const brotli = await raw(`/assets/${file}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.is(brotli.headers['content-encoding'], 'br');
  assert.is(brotli.headers.vary, 'Accept-Encoding');
  assert.is(Number(brotli.headers['content-length']), brotli.body.length);
  assert.ok(brotli.body.length < original.length / 3, `${brotli.body.length} of ${original.length} bytes`);
  assert.equal(brotliDecompressSync(brotli.body), original);
  const gzip = await raw(`/assets/${file}`, { headers: { 'accept-encoding': 'gzip, br;q=0' } });
  assert.is(gzip.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gzip.body), original);
  const identity = await raw(`/assets/${file}`);
  assert.is(identity.headers['content-encoding'], undefined);
  assert.equal(identity.body, original);
  const font = await raw(`/assets/${asset(/\.woff2$/)}`, { headers: { 'accept-encoding': 'br, gzip' } });
  assert.is(font.headers['content-encoding'], undefined, 'woff2 is compressed already');
  const page = await raw('/', { headers: { 'accept-encoding': 'br' } });
  assert.match(brotliDecompressSync(page.body).toString(), /<script type="module" src="\/assets\/app-[A-Z0-9]{8}\.js"><\/script>/);
  assert.is((await raw('/assets/' + file + '.br')).status, 404, 'the precompressed copies are not addressed directly');
});

test('HEAD sends the headers only; other methods on the site are 405', async () => {
  const head = await raw('/', { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(head.body.length, 0);
  assert.ok(Number(head.headers['content-length']) > 0);
  const post = await raw('/', { method: 'POST' });
  assert.is(post.status, 405);
  assert.is(post.headers.allow, 'GET, HEAD');
});

test('a connection idle for a presence heartbeat stays open for the next one, and says for how long', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  /** GET /config.json on the agent's one connection: its Keep-Alive header and whether the connection was an earlier one. */
  const get = () =>
    new Promise<{ keepAlive: string; reused: boolean }>((resolve, reject) => {
      const req = request(`${server.url}/config.json`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ keepAlive: String(res.headers['keep-alive']), reused: req.reusedSocket }));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    assert.equal(await get(), { keepAlive: `timeout=${(4 * PRESENCE_HEARTBEAT_MS) / 1000}`, reused: false });
    await sleep(PRESENCE_HEARTBEAT_MS + 500);
    assert.equal(await get(), { keepAlive: `timeout=${(4 * PRESENCE_HEARTBEAT_MS) / 1000}`, reused: true });
  } finally {
    agent.destroy();
  }
});

test.run();
