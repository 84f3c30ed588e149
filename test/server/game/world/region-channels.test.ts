/**
 * Region channels are private channels authorised by the policies on realtime.messages
 * (supabase/migrations/20250401000000_realtime_authorization.sql), and every region broadcast is
 * stamped with the wallet of the socket that sent it. Each refusal stands beside its honest control.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { enterAtSpawn, playerAtSpawn } from '../../../support/rules.js';
import { sleep, waitFor } from '../../../support/wait.js';
import { WRITE_CHECK_MS } from '../../../../server/realtime/limits.js';
import { accessToken, binaryPush, joinChannel, joinRegion, rawSocket, readBroadcast, replyTo, responseOf } from '../../../support/live.js';

let server: TestServer;
let alice: TestPlayer;
let bob: TestPlayer;
let carol: TestPlayer;
let erin: TestPlayer;
let region = 0;
/** A region topic no other test uses. */
const nextRegion = () => `region:${++region}:0`;

test.before(async () => {
  server = await startTestServer();
  [alice, bob, carol, erin] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  await enterAtSpawn(alice, 'Alice');
  await enterAtSpawn(bob, 'Bob');
  await enterAtSpawn(erin, 'Erin');
});

test.after(async () => {
  for (const p of [alice, bob, carol, erin]) await p.client.removeAllChannels();
  await server.stop();
});

test('anon: a private region join is refused with hosted\'s reply; a public channel still joins', async () => {
  const anon = createTestClient(server);
  const topic = nextRegion();
  const refused = await joinChannel(anon, topic, { private: true });
  assert.is(refused.status, 'CHANNEL_ERROR');
  assert.is(refused.reason, `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`);
  const open = await joinChannel(anon, 'lobby', {});
  assert.is(open.status, 'SUBSCRIBED');
  await anon.removeAllChannels();
});

test('a region joined without config.private is refused, for players too', async () => {
  const refused = await joinChannel(alice.client, nextRegion(), {});
  assert.is(refused.status, 'CHANNEL_ERROR');
  assert.is(refused.reason, 'PrivateOnly: This project only allows private channels');
  await alice.client.removeChannel(refused.channel);
});

test('a signed-in player without a presence row is refused; one with a fresh row joins', async () => {
  const topic = nextRegion();
  const refused = await joinChannel(carol.client, topic, { private: true });
  assert.is(refused.status, 'CHANNEL_ERROR');
  assert.is(refused.reason, `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`);
  await carol.client.removeChannel(refused.channel);
  const allowed = await joinChannel(alice.client, topic, { private: true });
  assert.is(allowed.status, 'SUBSCRIBED');
  await alice.client.removeChannel(allowed.channel);
});

test('only region topics are granted: a private non-region channel is refused even for a player', async () => {
  const refused = await joinChannel(alice.client, 'lobby-private', { private: true });
  assert.is(refused.status, 'CHANNEL_ERROR');
  assert.is(refused.reason, 'Unauthorized: You do not have permissions to read from this Channel topic: lobby-private');
  await alice.client.removeChannel(refused.channel);
});

test("a player's pose reaches another, its id stamped with the sender's wallet whatever it wrote", async () => {
  const topic = nextRegion();
  const listener = await joinRegion(bob.client, topic);
  const sender = await joinRegion(alice.client, topic, true);
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { id: alice.address, x: 1, y: 2 } }), 'ok');
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { id: bob.address, x: 3, y: 4 } }), 'ok');
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 5, y: 6 } }), 'ok');
  await waitFor(() => listener.heard.length === 3, { message: 'three poses' });
  assert.equal(listener.heard, [
    { id: alice.address, x: 1, y: 2 },
    { id: alice.address, x: 3, y: 4 },
    { id: alice.address, x: 5, y: 6 },
  ]);
  await alice.client.removeChannel(sender.channel);
  await bob.client.removeChannel(listener.channel);
});

test('a channel that asks for batches hears a tick of poses as one batch, newest per sender, never its own; others hear each pose alone', async () => {
  const topic = nextRegion();
  const batched = { private: true, broadcast: { self: false, ack: false, batch: true } };
  const listener = await joinChannel(bob.client, topic, batched);
  const sender = await joinChannel(alice.client, topic, batched);
  const single = await joinRegion(erin.client, topic);
  for (const x of [1, 2]) assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { id: bob.address, x } }), 'ok');
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'hit', payload: { x: 3 } }), 'ok');
  await waitFor(() => listener.heard.length > 0 && single.heard.length === 3, { message: 'the batch and the single poses' });
  assert.equal(listener.heard, [{ events: [{ event: 'pose', payload: { id: alice.address, x: 2 } }, { event: 'hit', payload: { x: 3, id: alice.address } }] }]);
  assert.equal(single.heard, [{ id: alice.address, x: 1 }, { id: alice.address, x: 2 }, { x: 3, id: alice.address }]);
  // Bob's pose is a later window's: whatever Alice was sent before it, she was sent first.
  assert.is(await listener.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 4 } }), 'ok');
  await waitFor(() => sender.heard.length > 0, { message: "Bob's batch" });
  assert.equal(sender.heard, [{ events: [{ event: 'pose', payload: { x: 4, id: bob.address } }] }]);
  for (const [player, joined] of [[alice, sender], [bob, listener], [erin, single]] as const) await player.client.removeChannel(joined.channel);
});

test('anon sends on a region are refused; the honest sender after it is the only one heard', async () => {
  const topic = nextRegion();
  const listener = await joinRegion(bob.client, topic);
  const anon = await rawSocket(server);
  anon.send(['1', '1', `realtime:${topic}`, 'phx_join', { config: { private: true } }]);
  assert.equal(responseOf(await anon.take(replyTo('1'))), {
    status: 'error',
    response: { reason: `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}` },
  });
  anon.send(['1', '2', `realtime:${topic}`, 'broadcast', { type: 'broadcast', event: 'pose', payload: { id: 'forged', x: 9 } }]);
  assert.equal(responseOf(await anon.take(replyTo('2'))), { status: 'error', response: { reason: 'unmatched topic' } });
  const sender = await joinRegion(alice.client, topic, true);
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 1 } }), 'ok');
  await waitFor(() => listener.heard.length > 0, { message: 'the honest pose' });
  assert.equal(listener.heard, [{ x: 1, id: alice.address }]);
  anon.ws.close();
  await alice.client.removeChannel(sender.channel);
  await bob.client.removeChannel(listener.channel);
});

test('binary payloads on a region are refused; a JSON binary push is stamped and delivered', async () => {
  const topic = nextRegion();
  const listener = await joinRegion(bob.client, topic);
  const sender = await rawSocket(server);
  sender.send(['1', '1', `realtime:${topic}`, 'phx_join', { config: { private: true }, access_token: await accessToken(alice) }]);
  assert.is(responseOf(await sender.take(replyTo('1'))).status, 'ok');
  sender.send(binaryPush('1', '2', `realtime:${topic}`, 'pose', Buffer.from([1, 2, 3]), 0));
  assert.equal(responseOf(await sender.take(replyTo('2'))), { status: 'error', response: { reason: 'Region broadcasts must carry a JSON object payload' } });
  sender.send(binaryPush('1', '3', `realtime:${topic}`, 'pose', Buffer.from('[1,2]'), 1));
  assert.equal(responseOf(await sender.take(replyTo('3'))), { status: 'error', response: { reason: 'Region broadcasts must carry a JSON object payload' } });
  sender.send(binaryPush('1', '4', `realtime:${topic}`, 'pose', Buffer.from(JSON.stringify({ id: carol.address, x: 7 })), 1));
  await waitFor(() => listener.heard.length > 0, { message: 'the JSON pose' });
  assert.equal(listener.heard, [{ id: alice.address, x: 7 }]);
  sender.ws.close();
  await bob.client.removeChannel(listener.channel);
});

test('a raw listener gets the stamped pose as a binary broadcast', async () => {
  const topic = nextRegion();
  const listener = await rawSocket(server);
  listener.send(['1', '1', `realtime:${topic}`, 'phx_join', { config: { private: true }, access_token: await accessToken(bob) }]);
  assert.is(responseOf(await listener.take(replyTo('1'))).status, 'ok');
  const sender = await joinRegion(alice.client, topic, true);
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { id: 'someone-else', x: 2 } }), 'ok');
  const frame = (await listener.take((f) => Buffer.isBuffer(f))) as Buffer;
  assert.equal(readBroadcast(frame), { topic: `realtime:${topic}`, event: 'pose', payload: { id: alice.address, x: 2 } });
  listener.ws.close();
  await alice.client.removeChannel(sender.channel);
});

test('a player whose presence row is gone may not send: its pose is dropped, a fresh player\'s is heard', async () => {
  const topic = nextRegion();
  const dave = await playerAtSpawn(server, 'Dave');
  const listener = await joinRegion(bob.client, topic);
  const leaver = await joinRegion(dave.client, topic);
  const { error } = await dave.client.from('game_players').delete().eq('player_id', dave.address);
  assert.is(error, null);
  assert.is(await leaver.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 666 } }), 'ok');
  // The barrier: dave's socket handles its frames in order, so once a later frame of it is
  // answered the dropped pose has been judged.
  const barrier = await joinChannel(dave.client, 'barrier', {});
  assert.is(barrier.status, 'SUBSCRIBED');
  const sender = await joinRegion(alice.client, topic, true);
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 1 } }), 'ok');
  await waitFor(() => listener.heard.length > 0, { message: "alice's pose" });
  assert.equal(listener.heard, [{ x: 1, id: alice.address }]);
  await dave.client.removeAllChannels();
  await alice.client.removeChannel(sender.channel);
  await bob.client.removeChannel(listener.channel);
});

test('a sender allowed before is heard while its verdict is asked again; once the renewal refuses, its poses are dropped', async () => {
  const topic = nextRegion();
  const frank = await playerAtSpawn(server, 'Frank');
  const listener = await joinRegion(bob.client, topic);
  const sender = await joinRegion(frank.client, topic, true);
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 1 } }), 'ok');
  const { error } = await frank.client.from('game_players').delete().eq('player_id', frank.address);
  assert.is(error, null);
  // Kept: the verdict's age, not an event: past it the next send asks the policies again.
  await sleep(WRITE_CHECK_MS + 100);
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 2 } }), 'ok');
  await waitFor(() => listener.heard.length === 2, { message: 'both poses' });
  // A refused send gets no reply: the renewal has answered once a send times out.
  let x = 2;
  await waitFor(async () => (await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x: ++x } }, { timeout: 300 })) === 'timed out', {
    timeout: 5000,
    message: 'a refused send',
  });
  const after = await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 99 } }, { timeout: 300 });
  assert.is(after, 'timed out');
  assert.ok(!listener.heard.some((pose) => pose.x === 99 || pose.x === x));
  assert.equal(listener.heard.slice(0, 2), [{ x: 1, id: frank.address }, { x: 2, id: frank.address }]);
  await frank.client.removeAllChannels();
  await bob.client.removeChannel(listener.channel);
});

test.run();
