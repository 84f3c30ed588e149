/**
 * Client broadcasts between two nodes of one world: a player on each node, poses on region
 * topics both ways (stamped with the sender's wallet on its own node, batched per receiver on
 * the other), the REST broadcast API crossing, and the bus carrying a pose only to a node that
 * has members of its topic. Each player signs in on the node it uses.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { startCluster, type TestCluster } from '../../support/cluster.js';
import { signInPlayer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { accessToken, rawSocket, replyTo, responseOf, subscribeChannel } from '../../support/live.js';
import { enterAtSpawn } from '../../support/rules.js';
import { waitFor } from '../../support/wait.js';

let cluster: TestCluster;
let node1: TestServer;
let node2: TestServer;
/** Alice plays on node-1, Bob on node-2. */
let alice: TestPlayer;
let bob: TestPlayer;
/** A test's own Redis client, subscribed to the bus channel of relayed broadcasts. */
let watcher: Redis;
/** The messages seen on the bus channel `broadcast`: their topic and event. */
const onBus: { topic: string; event: string }[] = [];
let region = 0;
/** A region topic no other test uses. */
const nextRegion = () => `region:${++region}:7`;

test.before(async () => {
  cluster = await startCluster(2);
  [node1, node2] = cluster.nodes as [TestServer, TestServer];
  [alice, bob] = await Promise.all([signInPlayer(node1), signInPlayer(node2)]);
  await enterAtSpawn(alice, 'Alice');
  await enterAtSpawn(bob, 'Bob');
  watcher = new Redis(cluster.redis.url);
  watcher.on('message', (_channel: string, text: string) => {
    for (const message of (JSON.parse(text) as { m: { topic: string; event: string }[] }).m) onBus.push({ topic: message.topic, event: message.event });
  });
  await watcher.subscribe('tessera:broadcast');
});

test.after(async () => {
  watcher?.disconnect();
  for (const player of [alice, bob]) await player?.client.removeAllChannels();
  await cluster?.close();
});

/** A joined channel and every broadcast it heard, with its event. */
interface Listening {
  channel: RealtimeChannel;
  heard: { event: string; payload: Record<string, unknown> }[];
}

/** Joins `topic` on `client` with `config` and keeps what it hears. */
async function listen(client: SupabaseClient, topic: string, config: Record<string, unknown>): Promise<Listening> {
  const heard: Listening['heard'] = [];
  const channel = client.channel(topic, { config }).on('broadcast', { event: '*' }, ({ event, payload }) => heard.push({ event, payload }));
  await subscribeChannel(channel);
  return { channel, heard };
}

/**
 * Sends `probe` broadcasts from `sender` until `listener` hears one: a join on one node reaches
 * the other's relay over the bus, so a broadcast sent the instant after it may not cross yet.
 */
async function awaitCrossing(sender: Listening, listener: Listening): Promise<void> {
  let probes = 0;
  await waitFor(
    async () => {
      if (listener.heard.some(isProbe)) return true;
      await sender.channel.send({ type: 'broadcast', event: 'probe', payload: { probe: ++probes } });
      return false;
    },
    { interval: 100, message: 'a probe across the nodes' },
  );
}

function isProbe(message: { event: string; payload: Record<string, unknown> }): boolean {
  return message.event === 'probe' || (message.event === 'batch' && (message.payload.events as { event: string }[]).every((e) => e.event === 'probe'));
}

/** What `listening` heard besides probes. */
const heardBesidesProbes = (listening: Listening) => listening.heard.filter((message) => !isProbe(message));

const REGION = { private: true, broadcast: { self: false, ack: true } };

test("poses cross both ways, stamped with the sender's wallet on its node; a sender with self hears itself once", async () => {
  const topic = nextRegion();
  const onNode1 = await listen(alice.client, topic, { private: true, broadcast: { self: true, ack: true } });
  const onNode2 = await listen(bob.client, topic, REGION);
  await awaitCrossing(onNode1, onNode2);
  await awaitCrossing(onNode2, onNode1);
  onNode1.heard.length = 0;
  onNode2.heard.length = 0;
  assert.is(await onNode1.channel.send({ type: 'broadcast', event: 'pose', payload: { id: bob.address, x: 1, y: 2 } }), 'ok');
  assert.is(await onNode2.channel.send({ type: 'broadcast', event: 'pose', payload: { id: alice.address, x: 3, y: 4 } }), 'ok');
  await waitFor(() => heardBesidesProbes(onNode1).length === 2 && heardBesidesProbes(onNode2).length === 1, { message: 'the poses on both nodes' });
  assert.equal(heardBesidesProbes(onNode2), [{ event: 'pose', payload: { id: alice.address, x: 1, y: 2 } }]);
  assert.equal(heardBesidesProbes(onNode1), [
    { event: 'pose', payload: { id: alice.address, x: 1, y: 2 } },
    { event: 'pose', payload: { id: bob.address, x: 3, y: 4 } },
  ]);
  await alice.client.removeChannel(onNode1.channel);
  await bob.client.removeChannel(onNode2.channel);
});

test('a receiver on the other node that asks for batches hears a tick of poses as one batch, newest per sender', async () => {
  const topic = nextRegion();
  const sender = await listen(alice.client, topic, { private: true, broadcast: { self: false, ack: false } });
  const batched = await listen(bob.client, topic, { private: true, broadcast: { self: false, ack: false, batch: true } });
  await awaitCrossing(sender, batched);
  batched.heard.length = 0;
  // Sent in one turn without acks: one bus message each, heard within one window of node-2.
  await Promise.all([1, 2, 3].map((x) => sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x } })).concat(sender.channel.send({ type: 'broadcast', event: 'hit', payload: { x: 9 } })));
  await waitFor(() => heardBesidesProbes(batched).length > 0, { message: 'the batch on node-2' });
  assert.equal(heardBesidesProbes(batched), [
    {
      event: 'batch',
      payload: {
        events: [
          { event: 'pose', payload: { x: 3, id: alice.address } },
          { event: 'hit', payload: { x: 9, id: alice.address } },
        ],
      },
    },
  ]);
  await alice.client.removeChannel(sender.channel);
  await bob.client.removeChannel(batched.channel);
});

test('the bus carries a pose only while the other node has members of its region: one bus message per pose then', async () => {
  const topic = nextRegion();
  const sender = await listen(alice.client, topic, REGION);
  for (const x of [1, 2, 3, 4, 5]) assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x } }), 'ok');
  const listener = await listen(bob.client, topic, REGION);
  await awaitCrossing(sender, listener);
  // The bus keeps one node's order: whatever node-1 published before its first probe is on the bus before it.
  await waitFor(() => onBus.some((m) => m.topic === `realtime:${topic}` && m.event === 'probe'), { message: 'the probe on the bus' });
  const before = onBus.filter((m) => m.topic === `realtime:${topic}` && m.event === 'pose');
  assert.equal(before, [], 'no pose published while node-2 had no member');
  for (let x = 10; x < 20; x += 1) assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x } }), 'ok');
  await waitFor(() => heardBesidesProbes(listener).length === 10, { message: 'ten poses on node-2' });
  assert.equal(heardBesidesProbes(listener).map((m) => m.payload.x), [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  assert.is(onBus.filter((m) => m.topic === `realtime:${topic}` && m.event === 'pose').length, 10);
  await bob.client.removeChannel(listener.channel);
  await alice.client.removeChannel(sender.channel);
});

test('REST API broadcasts cross: a private region message stamped with the caller, public bytes to a 2.0.0 socket', async () => {
  const topic = nextRegion();
  const listener = await listen(bob.client, topic, REGION);
  const raw = await rawSocket(node2);
  raw.send(['1', '1', 'realtime:lobby-bytes', 'phx_join', { config: {} }]);
  assert.is(responseOf(await raw.take(replyTo('1'))).status, 'ok');
  const token = await accessToken(alice);
  const post = (path: string, body: string | Buffer, type: string) =>
    fetch(`${node1.url}/realtime/v1${path}`, { method: 'POST', headers: { apikey: node1.anonKey, authorization: `Bearer ${token}`, 'Content-Type': type }, body: typeof body === 'string' ? body : new Uint8Array(body) });
  await waitFor(
    async () => {
      if (heardBesidesProbes(listener).length > 0) return true;
      const sent = await post('/api/broadcast', JSON.stringify({ messages: [{ topic, event: 'pose', payload: { id: 'forged', x: 5 }, private: true }] }), 'application/json');
      assert.is(sent.status, 202);
      return false;
    },
    { interval: 100, message: 'the REST pose on node-2' },
  );
  assert.equal(heardBesidesProbes(listener)[0], { event: 'pose', payload: { id: alice.address, x: 5 } });
  const bytes = Buffer.from([0, 1, 2, 250, 255]);
  const frame = await waitFor(
    async () => {
      const found = raw.frames.find((f) => Buffer.isBuffer(f));
      if (found) return found as Buffer;
      assert.is((await post('/api/broadcast/lobby-bytes/events/blob', bytes, 'application/octet-stream')).status, 202);
      return null;
    },
    { interval: 100, message: 'the bytes on node-2' },
  );
  const [, topicLength, eventLength, metaLength, encoding] = frame;
  assert.is(encoding, 0, 'raw bytes');
  assert.is(frame.toString('utf8', 5, 5 + topicLength!), 'realtime:lobby-bytes');
  assert.is(frame.toString('utf8', 5 + topicLength!, 5 + topicLength! + eventLength!), 'blob');
  assert.equal([...frame.subarray(5 + topicLength! + eventLength! + metaLength!)], [...bytes]);
  raw.ws.close();
  await bob.client.removeChannel(listener.channel);
});

test.run();
