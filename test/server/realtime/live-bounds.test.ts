/**
 * The live layer's bounds (server/realtime/limits.ts, docs/protocols.md §3): channels per socket,
 * joins per second, messages per second per socket and per wallet, payload size, the outbound
 * queue of a socket that stops reading, and joins of unknown tables. Each flood is refused past
 * its bound while another socket goes on as before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { enterAtSpawn, playerAtSpawn } from '../../support/rules.js';
import { waitFor } from '../../support/wait.js';
import { connectAsOperator } from '../../support/server.js';
import { accessToken, joinRegion, rawSocket, readBroadcast, replyTo, responseOf, type RawSocket } from '../../support/live.js';

let server: TestServer;
let alice: TestPlayer;
let bob: TestPlayer;
let dave: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  [alice, bob, dave] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  await Promise.all([enterAtSpawn(alice, 'Alice'), enterAtSpawn(bob, 'Bob'), enterAtSpawn(dave, 'Dave')]);
});

test.after(async () => {
  for (const p of [alice, bob, dave]) await p.client.removeAllChannels();
  await server.stop();
});

type Reply = { status: string; response: Record<string, unknown> };

/** Sends a join and resolves with its reply. */
async function join(socket: RawSocket, ref: string, topic: string, payload: Record<string, unknown> = {}): Promise<Reply> {
  socket.send([ref, ref, `realtime:${topic}`, 'phx_join', payload]);
  return responseOf(await socket.take(replyTo(ref))) as Reply;
}

/** Joins, retrying while the socket's joins-per-second budget is spent, and resolves with the first other reply. */
async function joinPaced(socket: RawSocket, ref: string, topic: string): Promise<Reply> {
  let attempt = 0;
  return waitFor(
    async () => {
      const reply = await join(socket, `${ref}.${++attempt}`, topic);
      return reply.response.reason === 'ClientJoinRateLimitReached: Too many joins per second' ? null : reply;
    },
    { timeout: 20_000, interval: 100, message: `a join of ${topic}` },
  );
}

/** A socket that joins `topic` and broadcasts on it with ack: the control that must keep working. */
async function controlBroadcast(topic: string): Promise<void> {
  const listener = await rawSocket(server);
  assert.is((await join(listener, 'l', topic)).status, 'ok');
  const control = await rawSocket(server);
  assert.is((await join(control, 'c', topic, { config: { broadcast: { ack: true } } })).status, 'ok');
  control.send(['c', 'c1', `realtime:${topic}`, 'broadcast', { type: 'broadcast', event: 'e', payload: { n: 1 } }]);
  assert.is(responseOf(await control.take(replyTo('c1'))).status, 'ok');
  assert.equal(readBroadcast((await listener.take((f) => Buffer.isBuffer(f))) as Buffer).payload, { n: 1 });
  listener.ws.close();
  control.ws.close();
}

test('joins past 20 per second are refused with hosted\'s reply; another socket joins at once', async () => {
  const flooder = await rawSocket(server);
  const started = performance.now();
  for (let i = 0; i < 60; i++) flooder.send([`j${i}`, `j${i}`, `realtime:burst-${i}`, 'phx_join', {}]);
  const replies: Reply[] = [];
  for (let i = 0; i < 60; i++) replies.push(responseOf(await flooder.take(replyTo(`j${i}`))) as Reply);
  const seconds = (performance.now() - started) / 1000;
  const accepted = replies.filter((r) => r.status === 'ok').length;
  assert.ok(replies.slice(0, 20).every((r) => r.status === 'ok'), 'the first 20 are accepted');
  // 20 at once, then 20 more for every second the burst took to handle.
  assert.ok(accepted <= 20 + Math.ceil(20 * seconds), `${accepted} accepted in ${seconds.toFixed(2)} s`);
  assert.equal(replies.find((r) => r.status === 'error')?.response, { reason: 'ClientJoinRateLimitReached: Too many joins per second' });
  const other = await rawSocket(server);
  assert.is((await join(other, 'o', 'burst-other')).status, 'ok');
  flooder.ws.close();
  other.ws.close();
});

test('a join whose read check would start 10 s after it reached its socket is answered unchecked; a fresh socket joins at once', async () => {
  // The read check of a `slow:*` topic takes 7 s (3.5 s in each of its two reads, within the
  // role's 8 s statement budget) and holds the address's place: Alice's and Bob's, one after
  // the other, keep the socket's later private join waiting for 14 s.
  const operator = await connectAsOperator(server);
  await operator.query(`create policy "slow test topics" on realtime.messages for select to authenticated
    using ((select realtime.topic()) like 'slow:%' and (select true from pg_sleep(3.5)))`);
  try {
    const socket = await rawSocket(server);
    const [aliceToken, bobToken] = await Promise.all([accessToken(alice), accessToken(bob)]);
    socket.send(['slow-a', 'slow-a', 'realtime:slow:a', 'phx_join', { access_token: aliceToken, config: { private: true } }]);
    socket.send(['slow-b', 'slow-b', 'realtime:slow:b', 'phx_join', { access_token: bobToken, config: { private: true } }]);
    await waitFor(async () => (await operator.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where wait_event = 'PgSleep'`)).rows[0]!.n === 1, {
      message: 'the slow checks running',
    });
    socket.send(['late', 'late', 'realtime:region:0:0', 'phx_join', { access_token: aliceToken, config: { private: true } }]);
    assert.equal(responseOf(await socket.take(replyTo('late'), 30_000)), { status: 'error', response: { reason: 'JoinTimedOut: the join waited too long; join again' } });
    for (const ref of ['slow-a', 'slow-b']) assert.equal(responseOf(await socket.take(replyTo(ref))), { status: 'ok', response: { postgres_changes: [] } });
    const fresh = await rawSocket(server);
    assert.is((await join(fresh, 'f', 'after-the-slow-ones')).status, 'ok');
    socket.ws.close();
    fresh.ws.close();
  } finally {
    await operator.query('drop policy "slow test topics" on realtime.messages');
    await operator.end();
  }
});

test('a socket holds at most 100 channels: the 101st is refused with hosted\'s reply; others are unaffected', async () => {
  const flooder = await rawSocket(server);
  for (let i = 0; i < 100; i++) assert.is((await joinPaced(flooder, `c${i}`, `many-${i}`)).status, 'ok');
  const refused = await joinPaced(flooder, 'c100', 'many-100');
  assert.equal(refused, { status: 'error', response: { reason: 'ChannelRateLimitReached: Too many channels' } });
  // Rejoining a topic it holds replaces that channel and is not refused.
  assert.is((await joinPaced(flooder, 'again', 'many-7')).status, 'ok');
  await controlBroadcast('channels-control');
  flooder.ws.close();
});

test('more than 100 messages a second shut the channel with hosted\'s system message; others are unaffected', async () => {
  const listener = await rawSocket(server);
  assert.is((await join(listener, 'l', 'chatter')).status, 'ok');
  const flooder = await rawSocket(server);
  assert.is((await join(flooder, 'f', 'chatter', { config: { broadcast: { ack: true } } })).status, 'ok');
  const started = performance.now();
  for (let i = 0; i < 150; i++) flooder.send(['f', `m${i}`, 'realtime:chatter', 'broadcast', { type: 'broadcast', event: 'e', payload: { i } }]);
  const system = (await flooder.take((f) => Array.isArray(f) && f[3] === 'system')) as unknown[];
  assert.equal(system[4], { extension: 'system', status: 'error', message: 'Too many messages per second', channel: 'chatter' });
  await flooder.take((f) => Array.isArray(f) && f[3] === 'phx_close');
  const seconds = (performance.now() - started) / 1000;
  const acked = flooder.frames.filter((f) => Array.isArray(f) && f[3] === 'phx_reply' && String(f[1]).startsWith('m') && responseOf(f).status === 'ok').length;
  // 100 at once, then 100 more for every second the flood took to handle.
  assert.ok(acked >= 100 && acked <= 100 + Math.ceil(100 * seconds), `${acked} of 150 delivered in ${seconds.toFixed(2)} s`);
  await waitFor(() => listener.frames.length === acked, { message: `${acked} broadcasts at the listener` });
  await controlBroadcast('messages-control');
  listener.ws.close();
  flooder.ws.close();
});

test('a socket that stops reading keeps only the newest pose per sender and stays open', async () => {
  const topic = 'region:50:50';
  const reader = await rawSocket(server);
  assert.is((await join(reader, 'r', topic, { config: { private: true }, access_token: await accessToken(bob) })).status, 'ok');
  const socket = (reader.ws as unknown as { _socket: import('node:net').Socket })._socket;
  socket.pause();
  const senders = [await joinRegion(alice.client, topic, true), await joinRegion(dave.client, topic, true)];
  const blob = 'p'.repeat(50_000);
  const last = 89;
  for (let i = 0; i <= last; i++) {
    for (const sender of senders) {
      const reply = sender.channel.send({ type: 'broadcast', event: 'pose', payload: { i, blob } });
      if (i === last) assert.is(await reply, 'ok');
    }
  }
  socket.resume();
  await waitFor(() => reader.frames.filter((f) => Buffer.isBuffer(f) && readBroadcast(f).payload.i === last).length === 2, {
    timeout: 10_000,
    message: "both senders' last pose",
  });
  const poses = reader.frames.filter((f) => Buffer.isBuffer(f)).length;
  assert.ok(poses < 2 * (last + 1), `older poses were dropped (${poses} of ${2 * (last + 1)} arrived)`);
  assert.is(reader.closed, null, 'dropping broadcasts never closes the socket');
  // The operator is told that the server started to shed, within a second or two.
  await waitFor(() => /realtime: shed \d+ broadcasts: sockets behind kept only the newest/.test(server.output()), { timeout: 5000, message: 'the shedding logged' });
  reader.ws.close();
  for (const [n, p] of [alice, dave].entries()) await p.client.removeChannel(senders[n].channel);
});

test('one wallet on two sockets shares one budget of 100 a second; another wallet is heard', async () => {
  const topic = 'region:40:40';
  const erin = await playerAtSpawn(server, 'Erin');
  const listener = await joinRegion(bob.client, topic);
  const sockets = [await rawSocket(server), await rawSocket(server)];
  const token = await accessToken(erin);
  for (const [n, socket] of sockets.entries()) {
    assert.is((await join(socket, `w${n}`, topic, { config: { private: true, broadcast: { ack: true } }, access_token: token })).status, 'ok');
  }
  const started = performance.now();
  for (let i = 0; i < 75; i++) {
    for (const [n, socket] of sockets.entries()) socket.send([`w${n}`, `p${i}`, `realtime:${topic}`, 'broadcast', { type: 'broadcast', event: 'pose', payload: { i } }]);
  }
  // Barrier: a heartbeat after the flood is answered once every pose before it was judged.
  for (const socket of sockets) socket.send([null, 'after', 'phoenix', 'heartbeat', {}]);
  for (const socket of sockets) await socket.take(replyTo('after'));
  const seconds = (performance.now() - started) / 1000;
  const shut = sockets.flatMap((s) => s.frames.filter((f) => Array.isArray(f) && f[3] === 'system')) as unknown[][];
  assert.ok(shut.length >= 1, 'a channel of the wallet was shut');
  assert.is((shut[0][4] as { message: string }).message, 'Too many messages per second');
  const acked = sockets.reduce((sum, s) => sum + s.frames.filter((f) => Array.isArray(f) && f[3] === 'phx_reply' && String(f[1]).startsWith('p') && responseOf(f).status === 'ok').length, 0);
  // One budget: 100 at once, then 100 more for every second the flood took to handle.
  assert.ok(acked >= 100 && acked <= 100 + Math.ceil(100 * seconds), `${acked} of 150 accepted in ${seconds.toFixed(2)} s`);
  const other = await joinRegion(dave.client, topic, true);
  assert.is(await other.channel.send({ type: 'broadcast', event: 'pose', payload: { from: 'dave' } }), 'ok');
  await waitFor(() => listener.heard.some((p) => p.id === dave.address), { message: "dave's pose" });
  assert.is(listener.heard.filter((p) => p.id === erin.address).length, acked, 'every accepted pose and no other was heard');
  for (const socket of sockets) socket.ws.close();
  await bob.client.removeChannel(listener.channel);
  await dave.client.removeChannel(other.channel);
  await erin.client.removeAllChannels();
});

test('a broadcast over 64 KiB is refused with hosted\'s text; one under it is delivered', async () => {
  const listener = await rawSocket(server);
  assert.is((await join(listener, 'l', 'big')).status, 'ok');
  const sender = await rawSocket(server);
  assert.is((await join(sender, 's', 'big', { config: { broadcast: { ack: true } } })).status, 'ok');
  sender.send(['s', 'huge', 'realtime:big', 'broadcast', { type: 'broadcast', event: 'e', payload: { blob: 'x'.repeat(70_000) } }]);
  assert.equal(responseOf(await sender.take(replyTo('huge'))), { status: 'error', response: { reason: 'Payload size exceeds tenant limit' } });
  sender.send(['s', 'fits', 'realtime:big', 'broadcast', { type: 'broadcast', event: 'e', payload: { blob: 'x'.repeat(60_000) } }]);
  assert.is(responseOf(await sender.take(replyTo('fits'))).status, 'ok');
  const heard = readBroadcast((await listener.take((f) => Buffer.isBuffer(f))) as Buffer);
  assert.is((heard.payload.blob as string).length, 60_000);
  assert.is(listener.frames.filter((f) => Buffer.isBuffer(f)).length, 0, 'the refused one never arrived');
  listener.ws.close();
  sender.ws.close();
});

test('a socket that stops reading while its replies pile past 4 MiB is closed with a reason; another socket is unaffected', async () => {
  const reader = await rawSocket(server);
  const socket = (reader.ws as unknown as { _socket: import('node:net').Socket })._socket;
  socket.pause();
  // A leave of a topic never joined is answered with that topic (refs are bounded to 255 bytes,
  // topics only at join): 40 answers of 500 kB each, 20 MB that are never read.
  const topic = `realtime:${'t'.repeat(500_000)}`;
  for (let i = 0; i < 40; i++) reader.send([null, `r${i}`, `${topic}${i}`, 'phx_leave', {}]);
  await waitFor(() => /realtime: closed socket #\d+: \d+ bytes of replies and changes were left unread/.test(server.output()), {
    timeout: 10_000,
    message: 'the server closing the socket',
  });
  socket.resume();
  await waitFor(() => reader.closed, { timeout: 10_000, message: 'the close at the client' });
  assert.equal(reader.closed, { code: 1008, reason: 'Too many unread messages' });
  assert.ok(reader.bytes < 12_000_000, `what arrived is bounded (${reader.bytes} bytes of 20 MB)`);
  await controlBroadcast('unread-control');
});

test('200 joins on tables that do not exist are refused fast, from the catalogue; a real table still subscribes', async () => {
  const sockets = await Promise.all(Array.from({ length: 10 }, () => rawSocket(server)));
  const started = performance.now();
  for (const [n, socket] of sockets.entries()) {
    for (let i = 0; i < 20; i++) {
      const bindings = [{ event: '*', schema: 'public', table: `missing_${n}_${i}` }];
      socket.send([`u${i}`, `u${i}`, `realtime:unknown-${n}-${i}`, 'phx_join', { config: { postgres_changes: bindings } }]);
    }
  }
  const systems = await Promise.all(
    sockets.map((socket) =>
      waitFor(() => socket.frames.filter((f) => Array.isArray(f) && f[3] === 'system').length === 20 && socket.frames, {
        message: '20 system messages',
      }),
    ),
  );
  const elapsed = performance.now() - started;
  for (const frames of systems) {
    for (const frame of frames.filter((f) => Array.isArray(f) && f[3] === 'system') as unknown[][]) {
      assert.match(String((frame[4] as { message: string }).message), /^Unable to subscribe to changes with given parameters/);
    }
  }
  assert.ok(elapsed < 1000, `200 refusals took ${Math.round(elapsed)} ms`);
  const control = await rawSocket(server);
  const bindings = [{ event: 'INSERT', schema: 'public', table: 'game_chat_messages' }];
  assert.is((await join(control, 'k', 'known', { config: { postgres_changes: bindings } })).status, 'ok');
  const system = (await control.take((f) => Array.isArray(f) && f[3] === 'system')) as unknown[];
  assert.is((system[4] as { message: string }).message, 'Subscribed to PostgreSQL');
  for (const socket of [...sockets, control]) socket.ws.close();
});

test.run();
