/**
 * Realtime against a hostile client, each case beside the honest path it must not disturb:
 * names too long for the binary frames (the long-topic batch that once stopped the server),
 * joins carrying thousands of postgres_changes bindings, filter operators hosted does not
 * support, and filters on deleted rows a subscriber may not read.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { accessToken, binaryPush, rawSocket, readBroadcast, replyTo, responseOf, subscribeChannel, type RawSocket } from '../../support/live.js';
import { enterAtSpawn } from '../../support/rules.js';
import { sleep, waitFor } from '../../support/wait.js';

let server: TestServer;
let alice: TestPlayer;
let bob: TestPlayer;
let ref = 0;

const TOPIC_TOO_LONG = 'TopicTooLong: a topic has at most 255 bytes';
const EVENT_TOO_LONG = 'EventTooLong: an event name has at most 255 bytes';
const PRESENCE_KEY_TOO_LONG = 'PresenceKeyTooLong: a presence key has at most 255 bytes';
const TOO_MANY_BINDINGS_PER_JOIN = 'TooManyBindings: a join carries at most 100 postgres_changes bindings';
const TOO_MANY_BINDINGS_PER_SOCKET = 'TooManyBindings: a socket holds at most 500 postgres_changes bindings';

test.before(async () => {
  server = await startTestServer();
  [alice, bob] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await enterAtSpawn(alice, 'Alice');
});

test.after(async () => {
  for (const client of [alice.client, bob.client]) await client.removeAllChannels();
  await server.stop();
});

/** Sends a join of `topic` with `payload` and resolves with the reply's `{status, response}`. */
async function join(socket: RawSocket, topic: string, payload: Record<string, unknown>): Promise<{ status: string; response: Record<string, unknown> }> {
  const r = String(++ref);
  socket.send([r, r, topic, 'phx_join', payload]);
  return responseOf(await socket.take(replyTo(r), 5000));
}

/** Asserts that the server process still runs and answers a heartbeat and a REST read. */
async function stillServing(socket: RawSocket): Promise<void> {
  assert.is(server.child.exitCode, null, 'the server process is still running');
  const r = String(++ref);
  socket.send([null, r, 'phoenix', 'heartbeat', {}]);
  assert.equal(responseOf(await socket.take(replyTo(r))), { status: 'ok', response: {} });
  const read = await alice.client.from('game_chat_messages').select('id').limit(1);
  assert.is(read.error, null);
}

const isBroadcast = (frame: unknown) => Buffer.isBuffer(frame) && frame[0] === 4;

test('a batch-taking join on a topic over 255 bytes is refused; the broadcast that once crashed the server reaches its honest members', async () => {
  const honest = await rawSocket(server);
  const sender = await rawSocket(server);
  const hostile = await rawSocket(server);
  assert.is((await join(honest, 'realtime:room', { config: { broadcast: { batch: true } } })).status, 'ok');
  assert.is((await join(sender, 'realtime:room', { config: {} })).status, 'ok');

  const long = `realtime:${'x'.repeat(300)}`;
  assert.equal(await join(hostile, long, { config: { broadcast: { batch: true } } }), { status: 'error', response: { reason: TOPIC_TOO_LONG } });
  // 9 + 83 x 3 = 258 bytes in 92 characters: the bound is in bytes.
  assert.equal(await join(hostile, `realtime:${'€'.repeat(83)}`, { config: { broadcast: { batch: true } } }), { status: 'error', response: { reason: TOPIC_TOO_LONG } });
  const r = String(++ref);
  hostile.send([r, r, long, 'broadcast', { type: 'broadcast', event: 'e', payload: { n: 1 } }]);
  assert.equal(responseOf(await hostile.take(replyTo(r))), { status: 'error', response: { reason: 'unmatched topic' } });
  // Kept: past the batch window (a timer): had the batch been gathered, its timer would have thrown by now.
  await sleep(100);
  await stillServing(honest);

  // Exactly 255 bytes joins, and its batches are encoded.
  const edge = `realtime:${'y'.repeat(246)}`;
  const member = await rawSocket(server);
  assert.is((await join(member, edge, { config: { broadcast: { batch: true } } })).status, 'ok');
  assert.is((await join(hostile, edge, { config: {} })).status, 'ok');
  hostile.send(binaryPush('1', String(++ref), edge, 'pose', Buffer.from('{"x":1}'), 1));
  const batch = readBroadcast((await member.take(isBroadcast)) as Buffer);
  assert.equal(batch, { topic: edge, event: 'batch', payload: { events: [{ event: 'pose', payload: { x: 1 } }] } });

  sender.send(binaryPush('1', String(++ref), 'realtime:room', 'pose', Buffer.from('{"x":2}'), 1));
  const heard = readBroadcast((await honest.take(isBroadcast)) as Buffer);
  assert.equal(heard, { topic: 'realtime:room', event: 'batch', payload: { events: [{ event: 'pose', payload: { x: 2 } }] } });
  for (const socket of [honest, sender, hostile, member]) socket.ws.close();
});

test('event names, refs and presence keys over 255 bytes are refused with their own errors', async () => {
  const socket = await rawSocket(server);
  assert.equal(
    await join(socket, 'realtime:keys', { config: { presence: { key: 'k'.repeat(256) } } }),
    { status: 'error', response: { reason: PRESENCE_KEY_TOO_LONG } },
  );
  assert.is((await join(socket, 'realtime:keys', { config: { presence: { key: 'k'.repeat(255) } } })).status, 'ok');
  const r = String(++ref);
  socket.send([r, r, 'realtime:keys', 'broadcast', { type: 'broadcast', event: 'e'.repeat(256), payload: {} }]);
  assert.equal(responseOf(await socket.take(replyTo(r))), { status: 'error', response: { reason: EVENT_TOO_LONG } });
  socket.send([null, 'r'.repeat(256), 'phoenix', 'heartbeat', {}]);
  const error = await socket.take((frame) => Array.isArray(frame) && frame[3] === 'phx_error');
  assert.equal(error, [null, null, 'phoenix', 'phx_error', { reason: 'ref longer than 255 bytes' }]);
  socket.send(['1', '2', 'realtime:keys', 'x'.repeat(256), {}]);
  const another = await socket.take((frame) => Array.isArray(frame) && frame[3] === 'phx_error');
  assert.equal(another, [null, null, 'phoenix', 'phx_error', { reason: 'event longer than 255 bytes' }]);
  await stillServing(socket);
  socket.ws.close();
});

test('the broadcast API refuses a topic or event the binary frames cannot carry (422)', async () => {
  const token = await accessToken(alice);
  const post = (messages: unknown[]) =>
    fetch(`${server.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages }),
    });
  const refused = await post([{ topic: 't'.repeat(247), event: 'e'.repeat(256), payload: {} }]);
  assert.is(refused.status, 422);
  assert.equal(await refused.json(), { errors: { messages: [{ topic: ['should be at most 246 byte(s)'], event: ['should be at most 255 byte(s)'] }] } });
  const accepted = await post([{ topic: 't'.repeat(246), event: 'e'.repeat(255), payload: {} }]);
  assert.is(accepted.status, 202);
});

/** `count` INSERT bindings on game_chat_messages, each with its own filter. */
function chatBindings(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({ event: 'INSERT', schema: 'public', table: 'game_chat_messages', filter: `id=neq.${-i - 1}` }));
}

test('a join of more than 100 bindings, or a socket past 500, is refused; an honest channel of 100 bindings is delivered to', async () => {
  const token = await accessToken(bob);
  const hostile = await rawSocket(server);
  assert.equal(
    // As in the audit: 16,000 bindings in one frame (under its 1 MiB bound).
    await join(hostile, 'realtime:flood', { access_token: token, config: { postgres_changes: Array(16_000).fill({ event: '*', schema: 'public', table: 'game_blocks' }) } }),
    { status: 'error', response: { reason: TOO_MANY_BINDINGS_PER_JOIN } },
  );
  assert.equal(
    await join(hostile, 'realtime:flood', { access_token: token, config: { postgres_changes: chatBindings(101) } }),
    { status: 'error', response: { reason: TOO_MANY_BINDINGS_PER_JOIN } },
  );
  for (let i = 0; i < 5; i++) {
    assert.is((await join(hostile, `realtime:many-${i}`, { access_token: token, config: { postgres_changes: chatBindings(100) } })).status, 'ok');
  }
  assert.equal(
    await join(hostile, 'realtime:one-more', { access_token: token, config: { postgres_changes: chatBindings(1) } }),
    { status: 'error', response: { reason: TOO_MANY_BINDINGS_PER_SOCKET } },
  );
  // Leaving a channel gives its bindings back.
  const r = String(++ref);
  hostile.send([r, r, 'realtime:many-0', 'phx_leave', {}]);
  await hostile.take(replyTo(r));
  assert.is((await join(hostile, 'realtime:one-more', { access_token: token, config: { postgres_changes: chatBindings(1) } })).status, 'ok');

  const { error } = await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'bound' });
  assert.is(error, null);
  // Every channel of the socket gets the insert once, naming each of its matching bindings.
  const frames: unknown[] = [];
  await waitFor(() => {
    for (let found = hostile.frames.findIndex((f) => Array.isArray(f) && f[3] === 'postgres_changes'); found >= 0; found = hostile.frames.findIndex((f) => Array.isArray(f) && f[3] === 'postgres_changes')) {
      frames.push(hostile.frames.splice(found, 1)[0]);
    }
    return frames.length === 5;
  }, { timeout: 5000, interval: 10, message: 'the insert on every channel' });
  const byTopic = new Map(frames.map((f) => [(f as unknown[])[2] as string, ((f as unknown[])[4] as { ids: number[] }).ids.length]));
  assert.equal(Object.fromEntries(byTopic), { 'realtime:many-1': 100, 'realtime:many-2': 100, 'realtime:many-3': 100, 'realtime:many-4': 100, 'realtime:one-more': 1 });
  hostile.ws.close();
});

test('patterns on voice clips\' audio are refused in REST\'s words; a pattern on a bounded column, eq and in keep working', async () => {
  const socket = await rawSocket(server);
  const large = 'is allowed on text columns of at most 1000 characters; audio_data holds up to 1000000';
  const refused: [string, string][] = [
    ['audio_data=like.%AAAA%', `Error parsing \`filter\` params: Pattern filter on a large column: game_voice_messages.audio_data (like ${large})`],
    ['audio_data=match.^(A+)+$', `Error parsing \`filter\` params: Pattern filter on a large column: game_voice_messages.audio_data (match ${large})`],
  ];
  for (const [i, [filter, message]] of refused.entries()) {
    const reply = await join(socket, `realtime:voice-${i}`, { config: { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'game_voice_messages', filter }] } });
    assert.is(reply.status, 'ok');
    const system = (await socket.take((frame) => Array.isArray(frame) && frame[3] === 'system')) as unknown[];
    assert.equal(system[4] as { status: string; message: string }, { extension: 'postgres_changes', status: 'error', message, channel: `voice-${i}` });
  }
  const pattern = await join(socket, 'realtime:chat-like', {
    access_token: await accessToken(bob),
    config: { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'game_chat_messages', filter: 'message=ilike.%XYL%' }] },
  });
  assert.is(pattern.status, 'ok');
  const patterned = (await socket.take((frame) => Array.isArray(frame) && frame[3] === 'system')) as unknown[];
  assert.is((patterned[4] as { message: string }).message, 'Subscribed to PostgreSQL');
  assert.is((await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'no match' })).error, null);
  assert.is((await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'xylophone' })).error, null);
  const matched = (await socket.take((frame) => Array.isArray(frame) && frame[3] === 'postgres_changes')) as unknown[];
  assert.is((matched[4] as { data: { record: { message: string } } }).data.record.message, 'xylophone');
  const honest = await join(socket, 'realtime:chat-in', {
    access_token: await accessToken(bob),
    config: { postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'game_chat_messages', filter: `player_id=in.(${alice.address},nobody)` }] },
  });
  assert.is(honest.status, 'ok');
  const subscribed = (await socket.take((frame) => Array.isArray(frame) && frame[3] === 'system')) as unknown[];
  assert.is((subscribed[4] as { message: string }).message, 'Subscribed to PostgreSQL');
  assert.is((await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'in' })).error, null);
  const change = (await socket.take((frame) => Array.isArray(frame) && frame[3] === 'postgres_changes')) as unknown[];
  assert.is((change[4] as { data: { record: { message: string } } }).data.record.message, 'in');
  socket.ws.close();
});

test('a DELETE is matched on the columns its subscriber is sent, the key on an RLS table; a role that reads no block hears none of their deletes', async () => {
  const anon = createTestClient(server);
  /** Which of the channel's callbacks fired, by name, for `client`. */
  const listen = async (client: typeof anon, name: string) => {
    const fired: string[] = [];
    const on = (label: string, binding: Record<string, unknown>) =>
      (channel = channel.on('postgres_changes', { schema: 'public', table: 'game_blocks', ...binding } as never, () => fired.push(label)));
    let channel = client.channel(name);
    on('all deletes', { event: 'DELETE' });
    on('owner delete', { event: 'DELETE', filter: `player_id=eq.${alice.address}` });
    on('owner any', { event: '*', filter: `player_id=eq.${alice.address}` });
    on('key delete', { event: 'DELETE', filter: 'x=eq.11' });
    on('type insert', { event: 'INSERT', filter: 'block_type=in.(gold,stone)' });
    await subscribeChannel(channel);
    return { channel, fired };
  };
  const stranger = await listen(anon, 'blocks-anon');
  const player = await listen(bob.client, 'blocks-bob');
  // The anon role reads no block over REST.
  assert.equal((await anon.from('game_blocks').select('x')).data, []);
  assert.is((await alice.client.from('game_blocks').insert({ x: 11, y: 8, block_type: 'gold', player_id: alice.address, player_name: 'Alice' })).error, null);
  // The insert must be read from the change log before its row is deleted to be delivered.
  await waitFor(() => player.fired.includes('type insert'), { timeout: 5000, interval: 10, message: 'the insert' });
  assert.is((await alice.client.from('game_blocks').delete().eq('x', 11).eq('y', 8)).error, null);
  await waitFor(() => player.fired.includes('all deletes'), { timeout: 5000, interval: 10, message: 'the delete' });
  // One frame carries every binding a change matched: once it is in, nothing else of it comes.
  assert.equal(player.fired.sort(), ['all deletes', 'key delete', 'owner any', 'type insert']);
  // The anon socket's own broadcast comes back after anything the delete sent it.
  let echoed = false;
  const echo = anon.channel('anon-echo', { config: { broadcast: { self: true } } }).on('broadcast', { event: 'done' }, () => (echoed = true));
  await subscribeChannel(echo);
  await echo.send({ type: 'broadcast', event: 'done', payload: {} });
  await waitFor(() => echoed, { timeout: 5000, interval: 10, message: 'the anon socket\'s echo' });
  assert.equal(stranger.fired, []);
  await anon.removeAllChannels();
  await bob.client.removeChannel(player.channel);
});

test.run();
