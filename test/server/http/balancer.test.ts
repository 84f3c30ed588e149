/**
 * docs/proxy/nginx-cluster.conf as it is (its host name, certificate and node addresses
 * replaced, its /metrics rule taken out so that this machine can ask through it which node
 * answered) in front of two nodes of one cluster, started as docs/deploy.md says
 * (TRUSTED_PROXIES=127.0.0.1): requests and websockets reach both nodes, each node judges a
 * request by the address nginx saw and never by what the client wrote into X-Forwarded-For, and
 * once a node is killed every request through nginx is served by the other. Skipped where nginx
 * or openssl is not installed (.ci/run installs nginx).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { startCluster, type TestCluster } from '../../support/cluster.js';
import { nginxInstalled, proxySite, send, startNginx, type Sending, type TestNginx } from '../../support/nginx.js';
import type { TestServer } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';

const METRICS_RULE = '    location = /metrics { return 403; }\n';
/** The node lines of the file's upstream, replaced by the test's nodes. */
const UPSTREAM_NODES = /^ {4}server 127\.0\.0\.1:517\d max_fails=2 fail_timeout=10s;\n/gm;
/** An address of loopback that is not a trusted proxy: a client of nginx that writes its own X-Forwarded-For. */
const SPOOFER = '127.0.0.2';

const NODE_ENV = { HOST: '127.0.0.1', TRUSTED_PROXIES: '127.0.0.1', RATE_LIMIT_WEB3: '1' };

let cluster: TestCluster;
let nginx: TestNginx;
const installed = nginxInstalled('balancer');

test.before(async () => {
  if (!installed) return;
  cluster = await startCluster(2, NODE_ENV);
  assert.is(cluster.nodes[1]!.anonKey, cluster.nodes[0]!.anonKey, 'one anon key for both nodes');
  const ports = cluster.nodes.map((node) => new URL(node.url).port);
  nginx = await startNginx((dir, port) => proxySite('nginx-cluster.conf', dir, port, (site) => {
    assert.is(site.match(UPSTREAM_NODES)?.length, 3, 'the file names three nodes');
    assert.ok(site.includes(METRICS_RULE), 'the /metrics rule is in the file');
    const nodes = ports.map((nodePort) => `    server 127.0.0.1:${nodePort} max_fails=2 fail_timeout=10s;\n`).join('');
    return site.replace(METRICS_RULE, '').replace(UPSTREAM_NODES, (line) => (line.includes(':5173') ? nodes : ''));
  }));
});

test.after(async () => {
  await nginx?.stop();
  await cluster?.close();
});

/** The node that answered a /metrics request through nginx (every series carries its `node`). */
async function answeringNode(): Promise<string> {
  const metrics = await send({ port: nginx.port, path: '/metrics', tls: true });
  assert.is(metrics.status, 200, 'this machine reads /metrics through nginx');
  return /^process_cpu_user_seconds_total\{node="([^"]+)"\}/m.exec(metrics.body)?.[1] ?? 'none';
}

/** One value of a node's own /metrics, read straight from the node. */
async function gauge(node: TestServer, series: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  return Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/** Opens a Realtime websocket through nginx; resolves once it is open. */
async function openSocket(anonKey: string): Promise<WebSocket> {
  const socket = new WebSocket(`wss://127.0.0.1:${nginx.port}/realtime/v1/websocket?apikey=${anonKey}&vsn=1.0.0`, { rejectUnauthorized: false });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return socket;
}

/** A web3 sign-in attempt through nginx (an empty grant: it is counted, then refused): its status. */
const signIn = (sending: Omit<Sending, 'path' | 'port' | 'tls'>) =>
  send({ ...sending, port: nginx.port, tls: true, path: '/auth/v1/token?grant_type=web3', method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json', ...sending.headers } })
    .then((answer) => answer.status);

/** The client addresses a node logged for its sign-in requests so far. */
function signInClients(node: TestServer): string[] {
  return node.output().split('\n').filter((line) => line.includes('"path":"/auth/v1/token"'))
    .map((line) => (JSON.parse(line) as { client: string }).client);
}

test('requests and websockets through nginx reach both nodes, taken in turn', async () => {
  if (!installed) return;
  const answered = [await answeringNode(), await answeringNode(), await answeringNode(), await answeringNode()];
  assert.equal([...answered].sort(), ['node-1', 'node-1', 'node-2', 'node-2'], answered.join());
  assert.is.not(answered[0], answered[1], 'two requests in a row go to different nodes');

  const sockets = [await openSocket(cluster.nodes[0]!.anonKey), await openSocket(cluster.nodes[0]!.anonKey)];
  const counts = await Promise.all(cluster.nodes.map((node) => gauge(node, `tessera_realtime_connections{node="${node === cluster.nodes[0] ? 'node-1' : 'node-2'}"}`)));
  assert.equal(counts, [1, 1], 'one socket on each node: the second goes to the node holding fewer');
  for (const socket of sockets) socket.terminate();
  for (const node of cluster.nodes) await waitFor(async () => (await gauge(node, `tessera_realtime_connections{node="${node === cluster.nodes[0] ? 'node-1' : 'node-2'}"}`)) === 0, { message: 'the sockets closed' });
});

test('each node counts a request by the address nginx saw: what a client writes into X-Forwarded-For is not believed', async () => {
  if (!installed) return;
  // A hop in front of nginx on a trusted address (127.0.0.1) forwarding two clients: each has a sign-in of its own.
  const forwarded = [
    await signIn({ headers: { 'X-Forwarded-For': '198.51.100.1' } }),
    await signIn({ headers: { 'X-Forwarded-For': '198.51.100.2' } }),
    await signIn({ headers: { 'X-Forwarded-For': '198.51.100.3' } }),
    await signIn({ headers: { 'X-Forwarded-For': '198.51.100.4' } }),
  ];
  assert.equal(forwarded, [400, 400, 400, 400], 'four forwarded clients, one sign-in each');

  // One client of nginx that is no trusted proxy writes a new address each time: all are its own.
  const spoofed: number[] = [];
  for (const forged of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4']) {
    spoofed.push(await signIn({ localAddress: SPOOFER, headers: { 'X-Forwarded-For': forged } }));
  }
  // Its first sign-in is counted and refused; by the third every node has counted one of its
  // attempts (nodes are taken in turn), and each further one is over its limit of 1.
  assert.is(spoofed[0], 400);
  assert.equal(spoofed.slice(2), [429, 429]);

  // A request's log line is written once its answer is sent: the last may trail its answer.
  const clients = await waitFor(() => {
    const lists = cluster.nodes.map(signInClients);
    return lists.flat().length === 8 && lists;
  }, { message: 'eight sign-ins logged' });
  assert.equal(clients.map((list) => list.length), [4, 4], 'each node served half of the sign-ins');
  assert.equal(clients.flat().filter((client) => client.startsWith('198.51.100.')).sort(), ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']);
  assert.equal(clients.flat().filter((client) => !client.startsWith('198.51.100.')), [SPOOFER, SPOOFER, SPOOFER, SPOOFER]);
});

test('once a node is killed, every request and websocket through nginx is served by the other', async () => {
  if (!installed) return;
  const [survivor, lost] = cluster.nodes as [TestServer, TestServer];
  const held = await Promise.all([openSocket(survivor.anonKey), openSocket(survivor.anonKey)]);
  const closed = held.map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())));
  await lost.kill();
  await Promise.race(closed);

  const answered: string[] = [];
  for (let i = 0; i < 6; i++) answered.push(await answeringNode());
  assert.equal(answered, Array(6).fill('node-1'), 'every request after the loss served by node-1');
  for (let i = 0; i < 4; i++) assert.is((await send({ port: nginx.port, path: '/readyz', tls: true })).status, 200);

  const reopened = [await openSocket(survivor.anonKey), await openSocket(survivor.anonKey)];
  await waitFor(async () => (await gauge(survivor, 'tessera_realtime_connections{node="node-1"}')) === 3, { message: 'the new sockets on node-1 beside the one that stayed' });
  for (const socket of [...held, ...reopened]) socket.terminate();
});

test.run();
