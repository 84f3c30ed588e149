import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clientAddresses, isLoopback, parseAddressRange, type ClientAddresses } from '../../../server/http/client-address.js';
import { serveMetrics } from '../../../server/http/ops.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/**
 * A real HTTP server on loopback that answers `/metrics` as if the peer were `peer`: the socket's
 * remote address is presented as that address, everything else is the server's own handling.
 */
async function serving(peer: string, token: string | undefined, clients: ClientAddresses = clientAddresses()): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    Object.defineProperty(req.socket, 'remoteAddress', { value: peer, configurable: true });
    void serveMetrics(req, res, token, clients);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, server };
}

test('loopback is 127.0.0.0/8, ::1 and IPv4 loopback mapped into IPv6; nothing else', () => {
  for (const address of ['127.0.0.1', '127.4.5.6', '::1', '::ffff:127.0.0.1']) assert.ok(isLoopback(address), address);
  for (const address of ['203.0.113.7', '::ffff:203.0.113.7', '2001:db8::1', '::', '', undefined, '1127.0.0.1', '127.0.0.1.example', 'unknown']) {
    assert.not.ok(isLoopback(address), String(address));
  }
});

test('from another address with no METRICS_TOKEN configured: 403', async () => {
  const { url, server } = await serving('203.0.113.7', undefined);
  try {
    const res = await fetch(url);
    assert.is(res.status, 403);
    assert.equal(await res.json(), { message: 'Metrics are readable from this machine only (set METRICS_TOKEN to read them from elsewhere)' });
    assert.is((await fetch(url, { headers: { authorization: 'Bearer anything-at-all-here' } })).status, 401);
  } finally {
    server.close();
  }
});

test('from another address with METRICS_TOKEN: 401 without it or with a wrong one, 200 with it', async () => {
  const { url, server } = await serving('::ffff:203.0.113.7', TOKEN);
  try {
    const missing = await fetch(url);
    assert.is(missing.status, 401);
    assert.is(missing.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    assert.is((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}x` } })).status, 401);
    assert.is((await fetch(url, { headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}` } })).status, 401);
    const good = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.is(good.status, 200);
    assert.match(await good.text(), /^# HELP /m);
  } finally {
    server.close();
  }
});

test('from loopback: 200 without a token', async () => {
  const { url, server } = await serving('127.0.0.1', TOKEN);
  try {
    assert.is((await fetch(url)).status, 200);
  } finally {
    server.close();
  }
});

const FORBIDDEN = { message: 'Metrics are readable from this machine only (set METRICS_TOKEN to read them from elsewhere)' };

test('through a proxy not in TRUSTED_PROXIES: any forwarding header from loopback is 403, the same peer without one 200', async () => {
  const { url, server } = await serving('127.0.0.1', undefined);
  try {
    for (const headers of [{ 'x-forwarded-for': '127.0.0.1' }, { forwarded: 'for=127.0.0.1' }, { 'x-real-ip': '127.0.0.1' }, { via: '1.1 nginx' }, { 'x-forwarded-proto': 'https' }] as Record<string, string>[]) {
      const res = await fetch(url, { headers });
      assert.is(res.status, 403, JSON.stringify(headers));
      assert.equal(await res.json(), FORBIDDEN);
    }
    assert.is((await fetch(url)).status, 200);
  } finally {
    server.close();
  }
});

test('through a trusted proxy the forwarded client is judged: a stranger 403, this machine 200, no X-Forwarded-For 403', async () => {
  const { url, server } = await serving('127.0.0.1', undefined, clientAddresses([parseAddressRange('127.0.0.1')!]));
  try {
    const stranger = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' } });
    assert.is(stranger.status, 403);
    assert.equal(await stranger.json(), FORBIDDEN);
    assert.is((await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.7, 127.0.0.1' } })).status, 403, 'a stranger behind two trusted hops');
    assert.is((await fetch(url, { headers: { 'x-forwarded-proto': 'https' } })).status, 403, 'forwarded without naming the client');
    assert.is((await fetch(url, { headers: { 'x-forwarded-for': '127.0.0.2' } })).status, 200, 'a client on this machine through the proxy');
    assert.is((await fetch(url)).status, 200, 'a direct scrape from this machine');
  } finally {
    server.close();
  }
});

test.run();
