/**
 * docs/proxy/nginx.conf as it is (its host name, certificate and upstream port replaced) in
 * front of the server, with a self-signed certificate: the page, readiness, the API and a
 * Realtime websocket pass over TLS, and /metrics is refused at the proxy. Skipped where nginx or
 * openssl is not installed (.ci/run installs nginx).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { freePort } from '../../server/db/cluster.js';
import { waitFor } from '../support/wait.js';
import { makeDataDir, removeDataDir, startTestServer } from '../support/harness.js';

const NGINX = '/usr/sbin/nginx';

/** GET over TLS, trusting the test's self-signed certificate. */
function get(url: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the nginx config of docs/proxy passes the page, the API and Realtime over TLS and refuses /metrics', async () => {
  if (!existsSync(NGINX) || !existsSync('/usr/bin/openssl')) {
    console.log('reverse-proxy: nginx or openssl is not installed, skipped');
    return;
  }
  const server = await startTestServer();
  const dir = await makeDataDir();
  const proxyPort = await freePort();
  const upstream = new URL(server.url).port;
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const site = (await readFile('docs/proxy/nginx.conf', 'utf8'))
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${proxyPort} ssl http2;`)
    .replaceAll('/etc/letsencrypt/live/tessera.example/fullchain.pem', join(dir, 'cert.pem'))
    .replaceAll('/etc/letsencrypt/live/tessera.example/privkey.pem', join(dir, 'key.pem'))
    .replace('http://127.0.0.1:5173', `http://127.0.0.1:${upstream}`);
  assert.ok(site.includes(`127.0.0.1:${upstream}`) && site.includes(join(dir, 'cert.pem')), 'the placeholders were found');
  await writeFile(join(dir, 'nginx.conf'), `daemon off;\nworker_processes 1;\npid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')};\n`
    + `events { worker_connections 64; }\nhttp {\n access_log off;\n client_body_temp_path ${dir};\n proxy_temp_path ${dir};\n${site}\n}\n`);
  const nginx = spawn(NGINX, ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  const base = `https://127.0.0.1:${proxyPort}`;
  try {
    await waitFor(async () => (await get(`${base}/healthz`).catch(() => null))?.status === 200, { timeout: 10_000, message: 'nginx up' });
    const page = await get(`${base}/`);
    assert.is(page.status, 200);
    assert.match(page.body, /<title>/i);
    assert.is((await get(`${base}/readyz`)).status, 200);
    assert.is((await get(`${base}/metrics`)).status, 403);
    const traced = await get(`${base}/config.json`);
    assert.match(String(traced.headers['x-request-id']), /^[0-9a-f]{32}$/, "nginx's $request_id is kept");

    const socket = new WebSocket(`wss://127.0.0.1:${proxyPort}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=1.0.0`, { rejectUnauthorized: false });
    const replies: unknown[] = [];
    socket.on('message', (data) => replies.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ topic: 'realtime:through-proxy', event: 'phx_join', payload: { config: { broadcast: { self: true } } }, ref: '1', join_ref: '1' }));
    const reply = await waitFor(() => replies.find((r) => (r as { ref?: string }).ref === '1'), { message: 'the join reply' });
    assert.is((reply as { payload: { status: string } }).payload.status, 'ok');
    socket.close();
  } finally {
    nginx.kill('SIGQUIT');
    await new Promise((resolve) => nginx.once('exit', resolve));
    await server.stop();
    await removeDataDir(dir);
  }
});

test.run();
