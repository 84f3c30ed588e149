/**
 * docs/proxy/nginx.conf as it is (its host name, certificate and upstream port replaced) in
 * front of the server, with a self-signed certificate: the page, readiness, the API and a
 * Realtime websocket pass over TLS, /metrics is refused at the proxy, and no spelling of a path
 * reaches the metrics page past it. Then the same file without its /metrics rule, in front of a
 * server run as the file says (HOST=127.0.0.1, TRUSTED_PROXIES=127.0.0.1): the server itself
 * judges each request by the forwarded client address. Skipped where nginx or openssl is not
 * installed (.ci/run installs nginx).
 */
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../../support/harness.js';
import { nginxInstalled, proxySite, send, startNginx, type Answer, type Sending } from '../../support/nginx.js';
import { waitFor } from '../../support/wait.js';

const METRICS_RULE = '    location = /metrics { return 403; }\n';
/** An address of the internet, forwarded as the client's by a hop in front of nginx. */
const STRANGER = '203.0.113.7';

/** The server's refusal of a path not in normal form. */
const refusedPath = (reason: string) => JSON.stringify({ code: 'invalid_path', message: `The request path is not in normal form: ${reason}` });
const METRICS_REFUSED = JSON.stringify({ message: 'Metrics are readable from this machine only (set METRICS_TOKEN to read them from elsewhere)' });
const ENCODED_UNRESERVED = 'an encoded letter, digit, "-", ".", "_" or "~"';
const DOT_SEGMENT = 'a dot segment ("." or "..")';

/** Runs `body` with nginx (the docs' file, with or without its /metrics rule) in front of `server` on its port. */
async function behindNginx(server: TestServer, keepMetricsRule: boolean, body: (proxyPort: number) => Promise<void>): Promise<void> {
  const upstream = new URL(server.url).port;
  const nginx = await startNginx((dir, port) => proxySite('nginx.conf', dir, port, (site) => {
    assert.ok(site.includes(METRICS_RULE) && site.includes('http://127.0.0.1:5173'), 'the /metrics rule and the upstream are in the file');
    return (keepMetricsRule ? site : site.replace(METRICS_RULE, '')).replace('http://127.0.0.1:5173', `http://127.0.0.1:${upstream}`);
  }));
  try {
    await body(nginx.port);
  } finally {
    await nginx.stop();
  }
}

const installed = () => nginxInstalled('reverse-proxy');

/** Who refuses a probe behind nginx: nginx itself (400 or 403), or the server for the probe's reason. */
type Refuser = 'nginx 400' | 'nginx 403' | 'server';

/**
 * Spellings of /metrics that a proxy and a server could read two ways: the server's reason for
 * refusing each (400), and who refuses it behind the docs' nginx file with and without its
 * /metrics rule (nginx decodes and resolves a path to match its locations, then passes it on as sent).
 */
const PROBES: [path: string, reason: string, withRule: Refuser, withoutRule: Refuser][] = [
  ['/.\\metrics', 'a backslash', 'server', 'server'],
  ['/x\\..\\metrics', 'a backslash', 'server', 'server'],
  ['/%5Cmetrics', 'an encoded backslash', 'server', 'server'],
  ['/x/..%5Cmetrics', 'an encoded backslash', 'server', 'server'],
  ['/%2E%2E/metrics', ENCODED_UNRESERVED, 'nginx 400', 'nginx 400'],
  ['/x/%2E%2E/metrics', ENCODED_UNRESERVED, 'nginx 403', 'server'],
  ['/%2E/metrics', ENCODED_UNRESERVED, 'nginx 403', 'server'],
  ['/%6Detrics', ENCODED_UNRESERVED, 'nginx 403', 'server'],
  ['//metrics', 'an empty segment ("//")', 'nginx 403', 'server'],
  ['/./metrics', DOT_SEGMENT, 'nginx 403', 'server'],
  ['/x/../metrics', DOT_SEGMENT, 'nginx 403', 'server'],
  ['/x%2F..%2Fmetrics', 'an encoded "/"', 'nginx 403', 'server'],
  ['/metrics%00', 'an encoded control character', 'nginx 400', 'nginx 400'],
];

/** Asserts that `answer` is the refusal of `path` by `refuser` (the server for `reason`). */
function assertRefused(answer: Answer, path: string, reason: string, refuser: Refuser): void {
  if (refuser === 'server') {
    assert.equal([answer.status, answer.body], [400, refusedPath(reason)], path);
  } else {
    assert.is(`nginx ${answer.status}`, refuser, path);
    assert.match(answer.body, /<center>nginx/, `${path} is refused by nginx`);
  }
}

test('the nginx config of docs/proxy passes the page, the API and Realtime over TLS, and no spelling of /metrics gets past it', async () => {
  if (!installed()) return;
  const server = await startTestServer();
  try {
    await behindNginx(server, true, async (port) => {
      const page = await send({ port, path: '/', tls: true });
      assert.is(page.status, 200);
      assert.match(page.body, /<title>/i);
      assert.is((await send({ port, path: '/readyz', tls: true })).status, 200);
      assert.is((await send({ port, path: '/metrics', tls: true })).status, 403);
      const traced = await send({ port, path: '/config.json', tls: true });
      assert.match(String(traced.headers['x-request-id']), /^[0-9a-f]{32}$/, "nginx's $request_id is kept");
      for (const [path, reason, withRule] of PROBES) assertRefused(await send({ port, path, tls: true }), path, reason, withRule);
      assert.is((await send({ port, path: '/metrics?x=1', tls: true })).status, 403);

      const socket = new WebSocket(`wss://127.0.0.1:${port}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=1.0.0`, { rejectUnauthorized: false });
      const replies: unknown[] = [];
      socket.on('message', (data) => replies.push(JSON.parse(String(data))));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      socket.send(JSON.stringify({ topic: 'realtime:through-proxy', event: 'phx_join', payload: { config: { broadcast: { self: true } } }, ref: '1', join_ref: '1' }));
      const reply = await waitFor(() => replies.find((r) => (r as { ref?: string }).ref === '1'), { message: 'the join reply' });
      assert.is((reply as { payload: { status: string } }).payload.status, 'ok');
      socket.close();
    });
    const upstream = Number(new URL(server.url).port);
    assert.is((await send({ port: upstream, path: '/healthz', tls: false, host: '::1' })).status, 200, 'without HOST the server listens on every interface');
  } finally {
    await server.stop();
  }
});

test('straight to the server, each exploit path is a 400 and a websocket upgrade on one too; the metrics page stays for this machine', async () => {
  const server = await startTestServer();
  try {
    const port = Number(new URL(server.url).port);
    for (const [path, reason] of PROBES) {
      const answer = await send({ port, path, tls: false });
      assertRefused(answer, path, reason, 'server');
      assert.is(answer.headers['content-type'], 'application/json; charset=utf-8', path);
    }
    const metrics = await send({ port, path: '/metrics', tls: false });
    assert.is(metrics.status, 200);
    assert.match(metrics.body, /^# HELP /m);

    const upgrade = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(
        `GET /realtime/v1/./websocket?apikey=${server.anonKey}&vsn=1.0.0 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + 'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += String(chunk))).on('end', () => resolve(text)).on('error', reject);
    });
    assert.match(upgrade, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.ok(upgrade.endsWith(`\r\n\r\n${JSON.stringify({ error: `The request path is not in normal form: ${DOT_SEGMENT}` })}`), upgrade);
  } finally {
    await server.stop();
  }
});

/** A web3 sign-in attempt through `port` (an empty grant: it is counted, then refused). */
const signIn = (sending: Omit<Sending, 'path'>) =>
  send({ ...sending, path: '/auth/v1/token?grant_type=web3', method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json', ...sending.headers } })
    .then((answer) => answer.status);

/** Opens a websocket through nginx for the forwarded client `client`: 'open', or the status it was refused with. */
function openSocket(port: number, anonKey: string, client: string): Promise<{ result: string | number; socket: WebSocket }> {
  const socket = new WebSocket(`wss://127.0.0.1:${port}/realtime/v1/websocket?apikey=${anonKey}&vsn=1.0.0`, {
    rejectUnauthorized: false,
    headers: { 'X-Forwarded-For': client },
  });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ result: 'open', socket }));
    socket.once('unexpected-response', (_req, res) => resolve({ result: res.statusCode!, socket }));
    socket.once('error', reject);
  });
}

test('behind nginx without its /metrics rule, a server with TRUSTED_PROXIES judges each request by the forwarded client', async () => {
  if (!installed()) return;
  const server = await startTestServer(undefined, { HOST: '127.0.0.1', TRUSTED_PROXIES: '127.0.0.1', RATE_LIMIT_WEB3: '1', REALTIME_MAX_SOCKETS_PER_IP: '1' });
  const upstream = Number(new URL(server.url).port);
  try {
    assert.is(server.url, `http://127.0.0.1:${upstream}`);
    const v6 = await send({ port: upstream, path: '/healthz', tls: false, host: '::1' }).then((answer) => answer.status, (error: NodeJS.ErrnoException) => error.code);
    assert.is(v6, 'ECONNREFUSED', 'HOST=127.0.0.1 keeps the server off other addresses');
    await behindNginx(server, false, async (port) => {
      const stranger = { 'X-Forwarded-For': STRANGER };
      const refused = await send({ port, path: '/metrics', tls: true, headers: stranger });
      assert.equal([refused.status, refused.body], [403, METRICS_REFUSED], 'a stranger through nginx is refused by the server itself');
      for (const [path, reason, , withoutRule] of PROBES) assertRefused(await send({ port, path, tls: true, headers: stranger }), path, reason, withoutRule);
      assert.equal(await send({ port, path: '/metrics?x=1', tls: true, headers: stranger }).then((answer) => [answer.status, answer.body]), [403, METRICS_REFUSED]);
      const local = await send({ port, path: '/metrics', tls: true });
      assert.equal([local.status, /^# HELP /m.test(local.body)], [200, true], 'this machine through nginx');

      assert.equal([await signIn({ port, tls: true, headers: { 'X-Forwarded-For': '198.51.100.1' } }), await signIn({ port, tls: true, headers: { 'X-Forwarded-For': '198.51.100.1' } })],
        [400, 429], 'one forwarded client has one sign-in a window');
      assert.is(await signIn({ port, tls: true, headers: { 'X-Forwarded-For': '198.51.100.2' } }), 400, 'another forwarded client has its own');

      const first = await openSocket(port, server.anonKey, '198.51.100.1');
      const again = await openSocket(port, server.anonKey, '198.51.100.1');
      const other = await openSocket(port, server.anonKey, '198.51.100.2');
      assert.equal([first.result, again.result, other.result], ['open', 429, 'open'], 'sockets count per forwarded client');
      for (const { socket } of [first, again, other]) socket.terminate();
    });

    const direct = await send({ port: upstream, path: '/metrics', tls: false });
    assert.equal([direct.status, /^# HELP /m.test(direct.body)], [200, true], 'a direct scrape from this machine');
    const forged = { 'X-Forwarded-For': '198.51.100.3' };
    const untrusted = await send({ port: upstream, path: '/metrics', tls: false, localAddress: '127.0.0.2', headers: forged });
    assert.equal([untrusted.status, untrusted.body], [403, METRICS_REFUSED], 'forwarded by a peer that is not a trusted proxy');
    assert.is((await send({ port: upstream, path: '/metrics', tls: false, localAddress: '127.0.0.2' })).status, 200, 'the same peer asking for itself');
    const forgedSignIns = [
      await signIn({ port: upstream, tls: false, localAddress: '127.0.0.2', headers: forged }),
      await signIn({ port: upstream, tls: false, localAddress: '127.0.0.2', headers: { 'X-Forwarded-For': '198.51.100.4' } }),
    ];
    assert.equal(forgedSignIns, [400, 429], 'an untrusted peer counts as itself whatever X-Forwarded-For it forges');
  } finally {
    await server.stop();
  }
});

test.run();
