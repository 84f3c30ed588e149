/**
 * Realtime presence through the real supabase-js client: track, re-track, untrack, leaving and
 * closing seen by the others with Phoenix's refs; private channels authorised by the presence
 * policies on realtime.messages; and each bound refused beside its honest control. Raw sockets
 * only where supabase-js hides the frames (reasons of refused tracks, many sockets at once).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { enterAtSpawn } from '../../support/rules.js';
import { connectAsOperator } from '../../support/server.js';
import type pg from 'pg';
import { waitFor } from '../../support/wait.js';
import { awaitDatabaseMarker, rawSocket, replyTo, responseOf, type RawSocket } from '../../support/live.js';

let server: TestServer;
let alice: TestPlayer;
let bob: TestPlayer;
/** Writes the test policies and sends the markers that stand before each "nothing else arrived". */
let operator: pg.Client;
const clients: SupabaseClient[] = [];
let topicCount = 0;
/** A topic no other test uses. */
const nextTopic = (prefix = 'room') => `${prefix}-${++topicCount}`;

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  [alice, bob] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await enterAtSpawn(alice, 'Alice');
});

test.after(async () => {
  for (const client of [...clients, alice.client, bob.client]) await client.removeAllChannels();
  await operator.end();
  await server.stop();
});

/** A fresh anonymous client (its own socket), removed after the suite. */
function anonClient(): SupabaseClient {
  const client = createTestClient(server);
  clients.push(client);
  return client;
}

type Presences = Record<string, unknown>[];

/** A channel with presence listeners and what it heard: join and leave events, syncs and system messages. */
interface Watched {
  client: SupabaseClient;
  channel: RealtimeChannel;
  status: string;
  reason: string | null;
  events: { event: 'join' | 'leave'; key: string; presences: Presences }[];
  syncs: number;
  system: Record<string, unknown>[];
}

/** Joins `topic` on `client` with presence key `key` (and `config` on top) and resolves once the server answered. */
async function watch(client: SupabaseClient, topic: string, key: string, config: Record<string, unknown> = {}): Promise<Watched> {
  const channel = client.channel(topic, { config: { presence: { key }, ...config } });
  const watched = { client, channel, status: '', reason: null, events: [], syncs: 0, system: [] } as Watched;
  channel
    .on('presence', { event: 'sync' }, () => watched.syncs++)
    .on('presence', { event: 'join' }, ({ key, newPresences }) => watched.events.push({ event: 'join', key, presences: newPresences }))
    .on('presence', { event: 'leave' }, ({ key, leftPresences }) => watched.events.push({ event: 'leave', key, presences: leftPresences }))
    .on('system', {}, (payload: Record<string, unknown>) => watched.system.push(payload));
  await new Promise<void>((resolve) =>
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED' || status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') {
        watched.status = status;
        watched.reason = error?.message ?? null;
        resolve();
      }
    }),
  );
  return watched;
}

/** The presence_ref of `key`'s only meta in `watched`'s state, once it is there. */
async function refOf(watched: Watched, key: string): Promise<string> {
  const metas = await waitFor(() => watched.channel.presenceState()[key], { message: `${key} in the presence state` });
  assert.is(metas.length, 1);
  return metas[0]!.presence_ref as string;
}

/**
 * The events heard so far, once there are `count` of them, and no more afterwards: a presence
 * diff is written to every member as the change is handled, so any other diff due by then has
 * arrived before a later database marker.
 */
async function eventsOnce(watched: Watched, count: number) {
  await waitFor(() => watched.events.length >= count, { message: () => `${count} presence events in ${JSON.stringify(watched.events)}` });
  await awaitDatabaseMarker(watched.client, operator);
  return watched.events.splice(0);
}

test('two clients track on one channel: both see the joins with the exact metas and the same refs', async () => {
  const topic = nextTopic();
  const a = await watch(anonClient(), topic, 'alice');
  assert.is(a.status, 'SUBSCRIBED');
  assert.is(await a.channel.track({ name: 'Alice', level: 1 }), 'ok');
  const aliceRef = await refOf(a, 'alice');
  assert.equal(await eventsOnce(a, 1), [{ event: 'join', key: 'alice', presences: [{ name: 'Alice', level: 1, presence_ref: aliceRef }] }]);

  const b = await watch(anonClient(), topic, 'bob');
  assert.is(b.status, 'SUBSCRIBED');
  // The joiner learns who is there from presence_state.
  assert.equal(await eventsOnce(b, 1), [{ event: 'join', key: 'alice', presences: [{ name: 'Alice', level: 1, presence_ref: aliceRef }] }]);
  assert.is(await b.channel.track({ name: 'Bob' }), 'ok');
  const bobRef = await refOf(b, 'bob');
  assert.not.equal(bobRef, aliceRef);
  const bobJoined = [{ event: 'join', key: 'bob', presences: [{ name: 'Bob', presence_ref: bobRef }] }];
  assert.equal(await eventsOnce(a, 1), bobJoined);
  assert.equal(await eventsOnce(b, 1), bobJoined);
  const state = { alice: [{ name: 'Alice', level: 1, presence_ref: aliceRef }], bob: [{ name: 'Bob', presence_ref: bobRef }] };
  assert.equal(a.channel.presenceState(), state);
  assert.equal(b.channel.presenceState(), state);
  assert.ok(a.syncs >= 2 && b.syncs >= 2, 'sync after each change');
});

test('re-track replaces the meta (a leave of the old, a join of the new); the same payload again changes nothing', async () => {
  const topic = nextTopic();
  const a = await watch(anonClient(), topic, 'alice');
  const b = await watch(anonClient(), topic, 'bob');
  assert.is(await a.channel.track({ x: 1 }), 'ok');
  const first = await refOf(b, 'alice');
  await eventsOnce(b, 1);
  assert.is(await a.channel.track({ x: 2 }), 'ok');
  const second = await waitFor(async () => {
    const ref = (b.channel.presenceState().alice?.[0]?.presence_ref as string | undefined) ?? first;
    return ref !== first && ref;
  });
  assert.equal(await eventsOnce(b, 2), [
    { event: 'join', key: 'alice', presences: [{ x: 2, presence_ref: second }] },
    { event: 'leave', key: 'alice', presences: [{ x: 1, presence_ref: first }] },
  ]);
  assert.equal(b.channel.presenceState(), { alice: [{ x: 2, presence_ref: second }] });
  assert.is(await a.channel.track({ x: 2 }), 'ok');
  await awaitDatabaseMarker(b.client, operator);
  assert.equal(b.events, [], 'an unchanged payload sends no diff');
  assert.equal(a.channel.presenceState(), { alice: [{ x: 2, presence_ref: second }] });
});

test('untrack, leaving and closing the socket are each seen by the other as a leave', async () => {
  const topic = nextTopic();
  const watcher = await watch(anonClient(), topic, 'watcher');
  const untracking = await watch(anonClient(), topic, 'u');
  const leaving = await watch(anonClient(), topic, 'l');
  const closingClient = anonClient();
  const closing = await watch(closingClient, topic, 'c');
  for (const [w, name] of [[untracking, 'u'], [leaving, 'l'], [closing, 'c']] as const) assert.is(await w.channel.track({ name }), 'ok');
  await waitFor(() => Object.keys(watcher.channel.presenceState()).length === 3, { message: 'three presences' });
  const refs = { u: await refOf(watcher, 'u'), l: await refOf(watcher, 'l'), c: await refOf(watcher, 'c') };
  watcher.events.length = 0;

  assert.is(await untracking.channel.untrack(), 'ok');
  assert.equal(await eventsOnce(watcher, 1), [{ event: 'leave', key: 'u', presences: [{ name: 'u', presence_ref: refs.u }] }]);
  assert.is(await leaving.channel.unsubscribe(), 'ok');
  assert.equal(await eventsOnce(watcher, 1), [{ event: 'leave', key: 'l', presences: [{ name: 'l', presence_ref: refs.l }] }]);
  closingClient.realtime.disconnect();
  assert.equal(await eventsOnce(watcher, 1), [{ event: 'leave', key: 'c', presences: [{ name: 'c', presence_ref: refs.c }] }]);
  assert.equal(watcher.channel.presenceState(), {});
  // The honest control: the untracked channel is still joined and may track again.
  assert.is(await untracking.channel.track({ name: 'u', back: true }), 'ok');
  const back = await refOf(watcher, 'u');
  assert.equal(await eventsOnce(watcher, 1), [{ event: 'join', key: 'u', presences: [{ name: 'u', back: true, presence_ref: back }] }]);
});

test('an empty presence key gets a server UUID per channel; a track payload that is not an object is refused', async () => {
  const topic = nextTopic();
  const a = await watch(anonClient(), topic, '');
  assert.is(await a.channel.track({ n: 1 }), 'ok');
  const keys = await waitFor(() => Object.keys(a.channel.presenceState()).length > 0 && Object.keys(a.channel.presenceState()));
  assert.match(keys[0]!, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const raw = await rawSocket(server);
  raw.send(['1', '1', `realtime:${topic}`, 'phx_join', { config: { presence: { key: 'raw', enabled: true } } }]);
  assert.is(responseOf(await raw.take(replyTo('1'))).status, 'ok');
  const state = (await raw.take((f) => Array.isArray(f) && f[3] === 'presence_state')) as unknown[];
  assert.equal(state.slice(0, 4), ['1', null, `realtime:${topic}`, 'presence_state']);
  assert.equal(Object.keys(state[4] as object), keys);
  raw.send(['1', '2', `realtime:${topic}`, 'presence', { type: 'presence', event: 'track', payload: [1, 2] }]);
  assert.equal(responseOf(await raw.take(replyTo('2'))), { status: 'error', response: { reason: 'Presence track payload must be a map' } });
  raw.send(['1', '3', `realtime:${topic}`, 'presence', { type: 'presence', event: 'track', payload: { n: 2 } }]);
  assert.equal(responseOf(await raw.take(replyTo('3'))), { status: 'ok', response: {} });
  const diff = (await raw.take((f) => Array.isArray(f) && f[3] === 'presence_diff' && 'raw' in (f[4] as { joins: object }).joins)) as unknown[];
  const ref = ((diff[4] as { joins: Record<string, { metas: { phx_ref: string }[] }> }).joins.raw!.metas[0]!).phx_ref;
  assert.equal(diff, [null, null, `realtime:${topic}`, 'presence_diff', { joins: { raw: { metas: [{ n: 2, phx_ref: ref }] } }, leaves: {} }]);
  raw.ws.close();
});

test('vsn 1.0.0 sockets get presence_state and presence_diff as object frames', async () => {
  const topic = nextTopic();
  const frames: Record<string, unknown>[] = [];
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=1.0.0`);
  ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(JSON.stringify({ join_ref: '1', ref: '1', topic: `realtime:${topic}`, event: 'phx_join', payload: { config: { presence: { key: 'old', enabled: true } } } }));
  ws.send(JSON.stringify({ join_ref: '1', ref: '2', topic: `realtime:${topic}`, event: 'presence', payload: { type: 'presence', event: 'track', payload: { v: 1 } } }));
  await waitFor(() => frames.length >= 4, { message: () => JSON.stringify(frames) });
  const ref = ((frames[3]!.payload as { joins: { old: { metas: { phx_ref: string }[] } } }).joins.old.metas[0]!).phx_ref;
  assert.equal(frames, [
    { join_ref: '1', ref: '1', topic: `realtime:${topic}`, event: 'phx_reply', payload: { status: 'ok', response: { postgres_changes: [] } } },
    { join_ref: '1', ref: null, topic: `realtime:${topic}`, event: 'presence_state', payload: {} },
    { join_ref: '1', ref: '2', topic: `realtime:${topic}`, event: 'phx_reply', payload: { status: 'ok', response: {} } },
    { join_ref: null, ref: null, topic: `realtime:${topic}`, event: 'presence_diff', payload: { joins: { old: { metas: [{ v: 1, phx_ref: ref }] } }, leaves: {} } },
  ]);
  ws.close();
});

test('private channels: presence is read and written only as the presence policies on realtime.messages allow', async () => {
  const topic = nextTopic('guild');
  const refused = await watch(bob.client, topic, 'bob', { private: true });
  assert.is(refused.status, 'CHANNEL_ERROR');
  assert.is(refused.reason, `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`);
  await bob.client.removeChannel(refused.channel);

  try {
    await operator.query(`create policy "test: presence read on guilds" on realtime.messages for select to authenticated
      using (extension = 'presence' and (select realtime.topic()) like 'guild-%')`);
    const reader = await watch(bob.client, topic, 'bob', { private: true });
    assert.is(reader.status, 'SUBSCRIBED');
    await waitFor(() => reader.syncs > 0, { message: 'the presence state of a readable topic' });
    assert.is(await reader.channel.track({ name: 'Bob' }), 'error', 'no write policy: the track is refused');
    await awaitDatabaseMarker(reader.client, operator);
    assert.equal(reader.channel.presenceState(), {});

    await operator.query(`create policy "test: presence write on guilds" on realtime.messages for insert to authenticated
      with check (extension = 'presence' and (select realtime.topic()) like 'guild-%')`);
    const writer = await watch(alice.client, topic, 'alice', { private: true });
    assert.is(writer.status, 'SUBSCRIBED');
    assert.is(await writer.channel.track({ name: 'Alice' }), 'ok');
    const ref = await refOf(reader, 'alice');
    assert.equal(reader.channel.presenceState(), { alice: [{ name: 'Alice', presence_ref: ref }] });
    // A public channel of the same name is another room: it sees nothing of the private one.
    const outsider = await watch(anonClient(), topic, 'anon');
    assert.is(outsider.status, 'SUBSCRIBED');
    await awaitDatabaseMarker(outsider.client, operator);
    assert.equal(outsider.channel.presenceState(), {});
  } finally {
    await operator.query(`drop policy if exists "test: presence read on guilds" on realtime.messages`);
    await operator.query(`drop policy if exists "test: presence write on guilds" on realtime.messages`);
  }
});

test("region topics keep the game's rules: a player joins with presence but its track is refused", async () => {
  const region = await watch(alice.client, 'region:40:0', 'alice', { private: true, broadcast: { self: false } });
  assert.is(region.status, 'SUBSCRIBED');
  assert.is(await region.channel.track({ x: 1 }), 'error');
  await alice.client.removeChannel(region.channel);
});

test('a track larger than the presence bound shuts the channel with hosted\'s message; one byte less is tracked', async () => {
  const topic = nextTopic();
  // The bound (4096 bytes) counts the key (1 byte) and the payload's JSON: {"blob":"…"} is 11 bytes plus the text.
  const fits = await watch(anonClient(), topic, 'k');
  assert.is(await fits.channel.track({ blob: 'x'.repeat(4084) }), 'ok');
  const tooLarge = await watch(anonClient(), topic, 'k');
  assert.is(await tooLarge.channel.track({ blob: 'x'.repeat(4085) }, { timeout: 1000 }), 'timed out');
  await waitFor(() => tooLarge.system.length > 0, { message: 'the system message' });
  assert.equal(tooLarge.system, [{ extension: 'system', status: 'error', message: 'Track message size exceeded', channel: topic }]);
  await waitFor(() => tooLarge.channel.state === 'closed', { message: 'the channel closed' });
  assert.equal(Object.keys(fits.channel.presenceState()), ['k']);
  assert.is(fits.channel.presenceState().k!.length, 1, 'only the honest meta is tracked');
});

test('the sixth presence event in 30 s shuts the channel with hosted\'s message; five pass', async () => {
  const topic = nextTopic();
  const busy = await watch(anonClient(), topic, 'busy');
  for (let n = 1; n <= 5; n++) assert.is(await busy.channel.track({ n }), 'ok', `event ${n}`);
  assert.is(await busy.channel.untrack({ timeout: 1000 }), 'timed out');
  await waitFor(() => busy.system.length > 0, { message: 'the system message' });
  assert.equal(busy.system, [{ extension: 'system', status: 'error', message: 'Client presence rate limit exceeded', channel: topic }]);
  // The honest control: another channel keeps its own window.
  const calm = await watch(anonClient(), topic, 'calm');
  assert.is(await calm.channel.track({ n: 1 }), 'ok');
  await waitFor(() => calm.channel.presenceState().calm, { message: 'calm tracked' });
  assert.is(calm.channel.presenceState().busy, undefined, "the shut channel's meta is gone");
});

/** Joins `topic` on a new raw socket under `key` and tracks `{key}`; resolves with the socket and the track reply. */
async function rawTrack(topic: string, key: string): Promise<{ raw: RawSocket; reply: unknown }> {
  const raw = await rawSocket(server);
  raw.send(['1', '1', `realtime:${topic}`, 'phx_join', { config: { presence: { key, enabled: false } } }]);
  assert.is(responseOf(await raw.take(replyTo('1'))).status, 'ok');
  raw.send(['1', '2', `realtime:${topic}`, 'presence', { type: 'presence', event: 'track', payload: { key } }]);
  return { raw, reply: responseOf(await raw.take(replyTo('2'), 10_000)) };
}

test('a topic holds at most 100 presence keys and 5 presences per key; the state is empty again once all have gone', async () => {
  const topic = nextTopic();
  const sockets: RawSocket[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const tracked = await Promise.all(Array.from({ length: 10 }, (_, i) => rawTrack(topic, `k${batch * 10 + i}`)));
    for (const { raw, reply } of tracked) {
      sockets.push(raw);
      assert.equal(reply, { status: 'ok', response: {} });
    }
  }
  const extraKey = await rawTrack(topic, 'k100');
  sockets.push(extraKey.raw);
  assert.equal(extraKey.reply, { status: 'error', response: { reason: 'Too many presence keys on this channel topic' } });
  // The honest controls: an existing key takes more presences, up to five.
  for (let n = 2; n <= 5; n++) {
    const more = await rawTrack(topic, 'k0');
    sockets.push(more.raw);
    assert.equal(more.reply, { status: 'ok', response: {} }, `presence ${n} under k0`);
  }
  const sixth = await rawTrack(topic, 'k0');
  sockets.push(sixth.raw);
  assert.equal(sixth.reply, { status: 'error', response: { reason: 'Too many presences under this key on this channel topic' } });

  for (const raw of sockets) raw.ws.close();
  const after = await watch(anonClient(), topic, 'after');
  await waitFor(() => after.syncs > 0 && Object.keys(after.channel.presenceState()).length === 0, {
    message: () => `an empty state, not ${Object.keys(after.channel.presenceState()).length} keys`,
  });
  assert.is(await after.channel.track({ back: 1 }), 'ok', 'a new key fits again');
});

test.run();
