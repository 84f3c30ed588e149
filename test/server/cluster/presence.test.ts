/**
 * Realtime presence as one state over two nodes of one world: a player on each node, tracks and
 * untracks crossing both ways with the same presence_diff on both nodes, a join on one node told
 * the presences of the other, a killed node's presences leaving the others once, and presence
 * resynchronised after Redis restarts. Raw sockets show the exact frames; each player signs in
 * on the node it uses.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startCluster, type TestCluster } from '../../support/cluster.js';
import { signInPlayer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { accessToken, rawSocket, replyTo, responseOf, type RawSocket } from '../../support/live.js';
import { NODE_DOWN_MS, NODE_HEARTBEAT_MS } from '../../../server/cluster/bus.js';

let cluster: TestCluster;
let node1: TestServer;
let node2: TestServer;
/** Alice plays on node-1, Bob on node-2. */
let alice: TestPlayer;
let bob: TestPlayer;
const sockets: RawSocket[] = [];
let topicCount = 0;
/** A topic no other test uses. */
const nextTopic = () => `realtime:room-${++topicCount}`;

test.before(async () => {
  cluster = await startCluster(2);
  [node1, node2] = cluster.nodes as [TestServer, TestServer];
  [alice, bob] = await Promise.all([signInPlayer(node1), signInPlayer(node2)]);
});

test.after(async () => {
  for (const socket of sockets) socket.ws.close();
  await cluster?.close();
});

type Groups = Record<string, { metas: Record<string, unknown>[] }>;
type Diff = { joins: Groups; leaves: Groups };

/** A raw socket of `player` on `server`, joined to `topic` with presence key `key`; resolves with it and the presence_state it was sent. */
async function joinPresence(server: TestServer, player: TestPlayer, topic: string, key: string): Promise<{ socket: RawSocket; state: Groups }> {
  const socket = await rawSocket(server);
  sockets.push(socket);
  socket.send(['1', '1', topic, 'phx_join', { config: { presence: { key, enabled: true } }, access_token: await accessToken(player) }]);
  assert.is(responseOf(await socket.take(replyTo('1'))).status, 'ok');
  const state = (await socket.take((f) => Array.isArray(f) && f[3] === 'presence_state')) as [null, null, string, string, Groups];
  return { socket, state: state[4] };
}

let refs = 100;
/** Tracks `payload` (or untracks with null) on `socket`'s channel and expects an ok reply. */
async function presence(socket: RawSocket, topic: string, payload: Record<string, unknown> | null): Promise<void> {
  const ref = String(++refs);
  socket.send(['1', ref, topic, 'presence', payload ? { type: 'presence', event: 'track', payload } : { type: 'presence', event: 'untrack' }]);
  assert.equal(responseOf(await socket.take(replyTo(ref))), { status: 'ok', response: {} });
}

/** The next presence_diff `socket` is sent (within `ms`), removed from its frames. */
async function nextDiff(socket: RawSocket, ms = 3000): Promise<Diff> {
  const frame = (await socket.take((f) => Array.isArray(f) && f[3] === 'presence_diff', ms)) as [null, null, string, string, Diff];
  return frame[4];
}

/** The phx_ref of `key`'s only meta in `groups`. */
const refOf = (groups: Groups, key: string) => groups[key]!.metas[0]!.phx_ref as string;

test('track and untrack cross both ways as the same diff on both nodes; a join on node-2 is told node-1\'s presences', async () => {
  const topic = nextTopic();
  const a = await joinPresence(node1, alice, topic, 'alice');
  const b = await joinPresence(node2, bob, topic, 'bob');
  assert.equal([a.state, b.state], [{}, {}]);

  await presence(a.socket, topic, { name: 'Alice', level: 1 });
  const aliceJoined = await nextDiff(a.socket);
  const aliceRef = refOf(aliceJoined.joins, 'alice');
  assert.equal(aliceJoined, { joins: { alice: { metas: [{ name: 'Alice', level: 1, phx_ref: aliceRef }] } }, leaves: {} });
  assert.equal(await nextDiff(b.socket), aliceJoined);

  await presence(b.socket, topic, { name: 'Bob' });
  const bobJoined = await nextDiff(b.socket);
  const bobRef = refOf(bobJoined.joins, 'bob');
  assert.equal(bobJoined, { joins: { bob: { metas: [{ name: 'Bob', phx_ref: bobRef }] } }, leaves: {} });
  assert.equal(await nextDiff(a.socket), bobJoined);

  // A late joiner on either node is told every node's presences.
  const late2 = await joinPresence(node2, bob, topic, 'late');
  const late1 = await joinPresence(node1, alice, topic, 'late');
  const both = { alice: { metas: [{ name: 'Alice', level: 1, phx_ref: aliceRef }] }, bob: { metas: [{ name: 'Bob', phx_ref: bobRef }] } };
  assert.equal(late2.state, both);
  assert.equal(late1.state, both);

  await presence(a.socket, topic, null);
  const aliceLeft = { joins: {}, leaves: { alice: { metas: [{ name: 'Alice', level: 1, phx_ref: aliceRef }] } } };
  for (const socket of [a.socket, b.socket, late1.socket, late2.socket]) assert.equal(await nextDiff(socket), aliceLeft);
  await presence(b.socket, topic, null);
  const bobLeft = { joins: {}, leaves: { bob: { metas: [{ name: 'Bob', phx_ref: bobRef }] } } };
  for (const socket of [a.socket, b.socket, late1.socket, late2.socket]) assert.equal(await nextDiff(socket), bobLeft);
});

test('a key spread over both nodes is held to the metas a key may have on one', async () => {
  const topic = nextTopic();
  const joined = [];
  for (let i = 0; i < 6; i += 1) joined.push(await joinPresence(i % 2 === 0 ? node1 : node2, i % 2 === 0 ? alice : bob, topic, 'shared'));
  const last = joined[5]!.socket;
  for (const [i, { socket }] of joined.slice(0, 5).entries()) {
    await presence(socket, topic, { n: i });
    // The sixth channel (on node-2) is sent each track, those of node-1 over the bus, before the next is made.
    assert.equal(Object.keys((await nextDiff(last)).joins), ['shared']);
  }
  last.send(['1', '9', topic, 'presence', { type: 'presence', event: 'track', payload: { n: 5 } }]);
  assert.equal(responseOf(await last.take(replyTo('9'))), { status: 'error', response: { reason: 'Too many presences under this key on this channel topic' } });
  // The honest control: once one of the five leaves, the sixth may track.
  await presence(joined[0]!.socket, topic, null);
  await nextDiff(last);
  await presence(last, topic, { n: 5 });
});

test("a killed node's presences leave the other node once, within 10 s", async () => {
  const topic = nextTopic();
  const node3 = await cluster.addNode();
  const carol = await signInPlayer(node3);
  const watching = await joinPresence(node1, alice, topic, 'watcher');
  const c = await joinPresence(node3, carol, topic, 'carol');
  await presence(c.socket, topic, { name: 'Carol' });
  const carolJoined = await nextDiff(watching.socket);
  const carolRef = refOf(carolJoined.joins, 'carol');
  const killedAt = performance.now();
  await node3.kill();
  const left = await nextDiff(watching.socket, 10_000);
  const seconds = (performance.now() - killedAt) / 1000;
  assert.equal(left, { joins: {}, leaves: { carol: { metas: [{ name: 'Carol', phx_ref: carolRef }] } } });
  // Counted as down NODE_DOWN_MS after its last heartbeat, which came at most NODE_HEARTBEAT_MS before the kill.
  assert.ok(seconds >= (NODE_DOWN_MS - NODE_HEARTBEAT_MS) / 1000 && seconds < 10, `left after ${seconds.toFixed(1)} s`);
  // A change made after the leave arrives next: nothing else was sent in between.
  const b = await joinPresence(node2, bob, topic, 'bob');
  await presence(b.socket, topic, { name: 'Bob' });
  const bobJoined = await nextDiff(watching.socket);
  assert.equal(Object.keys(bobJoined.joins), ['bob']);
  assert.equal(watching.socket.frames.filter((f) => Array.isArray(f) && f[3] === 'presence_diff'), []);
});

test('after Redis restarts, what changed on each node while it was down reaches the other', async () => {
  const topic = nextTopic();
  const a = await joinPresence(node1, alice, topic, 'alice');
  const b = await joinPresence(node2, bob, topic, 'bob');
  await presence(a.socket, topic, { v: 1 });
  const first = refOf((await nextDiff(b.socket)).joins, 'alice');
  await nextDiff(a.socket);
  await presence(b.socket, topic, { v: 1 });
  const bobRef = refOf((await nextDiff(a.socket)).joins, 'bob');
  await nextDiff(b.socket);

  await cluster.redis.stop();
  await presence(a.socket, topic, { v: 2 });
  const retracked = await nextDiff(a.socket);
  const second = refOf(retracked.joins, 'alice');
  await presence(b.socket, topic, null);
  await nextDiff(b.socket);
  await cluster.redis.restart();

  // Down for less than NODE_DOWN_MS, each node is sent the other's state: one diff of what changed.
  assert.equal(await nextDiff(b.socket, 10_000), {
    joins: { alice: { metas: [{ v: 2, phx_ref: second, phx_ref_prev: first }] } },
    leaves: { alice: { metas: [{ v: 1, phx_ref: first }] } },
  });
  assert.equal(await nextDiff(a.socket, 10_000), { joins: {}, leaves: { bob: { metas: [{ v: 1, phx_ref: bobRef }] } } });
  const late = await joinPresence(node2, bob, topic, 'late');
  assert.equal(late.state, { alice: { metas: [{ v: 2, phx_ref: second, phx_ref_prev: first }] } });
});

test.run();
