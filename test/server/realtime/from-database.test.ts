/**
 * Broadcast from the database and broadcast replay, through the real supabase-js client:
 * realtime.send() and realtime.broadcast_changes() reach the members of their topic (private
 * messages only those the read policies allow), a private join with `broadcast.replay` receives
 * the topic's stored messages (sent with `persist`, or from SQL), and the bounds: payload size,
 * messages per topic at once and per statement. The policies and the probe table are created by
 * the database operator, as an app's migration would. Each refusal sits beside its control.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { connectAsOperator } from '../../support/server.js';
import { sleep, waitFor } from '../../support/wait.js';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { accessToken, awaitDatabaseMarker, binaryPush, rawSocket, replyTo, responseOf, subscribeChannel, userIdOf } from '../../support/live.js';

let server: TestServer;
let operator: pg.Client;
/** May read and write broadcasts of every `room:` topic it is listed on, and store them for replay. */
let alice: TestPlayer;
/** May read and write broadcasts of its topics, but not store them. */
let bob: TestPlayer;
/** May read presence only: it joins with presence, and receives no broadcast. */
let carol: TestPlayer;
let anonClient: SupabaseClient;
let topicCount = 0;
const nextTopic = () => `room:${++topicCount}`;

/** A broadcast as supabase-js hands it to a listener. */
interface Heard {
  event: string;
  payload: Record<string, unknown>;
  meta?: { id: string; replayed?: boolean };
}

interface Listener {
  channel: RealtimeChannel;
  status: string;
  reason: string | null;
  heard: Heard[];
}

async function listen(client: SupabaseClient, topic: string, config: Record<string, unknown>): Promise<Listener> {
  const heard: Heard[] = [];
  const channel = client.channel(topic, { config }).on('broadcast', { event: '*' }, (message) => {
    const { event, payload, meta } = message as unknown as Heard;
    heard.push(meta ? { event, payload, meta } : { event, payload });
  });
  const { status, reason } = await new Promise<{ status: string; reason: string | null }>((resolve) =>
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED' || status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') resolve({ status, reason: error?.message ?? null });
    }),
  );
  return { channel, status, reason, heard };
}

/** Lets `reader` read (and write) `extension` messages of `topic`; `persist` also lets it store broadcasts. */
async function grant(reader: TestPlayer, topic: string, extension: 'broadcast' | 'presence', persist = false): Promise<void> {
  await operator.query('insert into room_access.members (topic, member, extension, persist) values ($1, $2, $3, $4)', [
    topic,
    await userIdOf(reader),
    extension,
    persist,
  ]);
}

const sql = (text: string, params: unknown[] = []) => operator.query(text, params);

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  [alice, bob, carol] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  anonClient = createTestClient(server);
  await sql(`
    create schema room_access;
    create table room_access.members (topic text not null, member uuid not null, extension text not null, persist boolean not null,
      primary key (topic, member, extension));
    grant usage on schema room_access to authenticated;
    grant select on room_access.members to authenticated;
    create policy "room members read" on realtime.messages for select to authenticated using (
      exists (select 1 from room_access.members m
              where m.topic = (select realtime.topic()) and m.member = (select auth.uid()) and m.extension = realtime.messages.extension));
    create policy "room members write" on realtime.messages for insert to authenticated with check (
      exists (select 1 from room_access.members m
              where m.topic = (select realtime.topic()) and m.member = (select auth.uid())
                and (m.extension = realtime.messages.extension or (realtime.messages.extension = 'persistence' and m.extension = 'broadcast' and m.persist))));
    create table public.dbcast_items (id int primary key, label text);
    create function public.dbcast_items_changed() returns trigger language plpgsql security definer set search_path = '' as $$
    begin
      perform realtime.broadcast_changes('room:items', tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
      return null;
    end $$;
    create trigger dbcast_items_changed after insert or update or delete on public.dbcast_items
      for each row execute function public.dbcast_items_changed();
  `);
});

test.after(async () => {
  for (const client of [alice.client, bob.client, carol.client, anonClient]) await client.removeAllChannels();
  await operator.end();
  await server.stop();
});

test('realtime.send() reaches a private member the read policy allows, not one without broadcast read; public sends reach public members', async () => {
  const topic = nextTopic();
  await grant(alice, topic, 'broadcast');
  await grant(carol, topic, 'presence');
  const reader = await listen(alice.client, topic, { private: true });
  const presenceOnly = await listen(carol.client, topic, { private: true, presence: { enabled: true } });
  const outsider = await listen(bob.client, topic, { private: true });
  const publicMember = await listen(anonClient, topic, {});
  assert.equal([reader.status, presenceOnly.status, publicMember.status], ['SUBSCRIBED', 'SUBSCRIBED', 'SUBSCRIBED']);
  assert.equal([outsider.status, outsider.reason], ['CHANNEL_ERROR', `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`]);

  await sql(`select realtime.send('{"n": 1}', 'note', $1)`, [topic]);
  await waitFor(() => reader.heard.length === 1, { message: 'the private message' });
  const [message] = reader.heard;
  const { id } = message!.meta!;
  assert.equal(message, { event: 'note', payload: { n: 1, id }, meta: { id } });
  const [{ stored }] = (await sql(`select count(*)::int as stored from realtime.messages where id = $1 and topic = $2 and private and event = 'note'`, [id, topic])).rows;
  assert.is(stored, 1);

  // The control: a public send reaches the public member only; the private members hear nothing more.
  await sql(`select realtime.send('{"n": 2, "id": "mine"}', 'note', $1, false)`, [topic]);
  await waitFor(() => publicMember.heard.length === 1, { message: 'the public message' });
  assert.is(publicMember.heard[0]!.event, 'note');
  assert.equal(publicMember.heard[0]!.payload, { n: 2, id: 'mine' });
  await awaitDatabaseMarker(alice.client, operator);
  await awaitDatabaseMarker(carol.client, operator);
  assert.is(reader.heard.length, 1);
  assert.equal(presenceOnly.heard, []);
  for (const listener of [reader, presenceOnly]) await listener.channel.unsubscribe();
  await anonClient.removeChannel(publicMember.channel);
});

test('realtime.send_binary() delivers bytes as a binary broadcast; a channel asking for replication_ready is told it is established', async () => {
  const topic = nextTopic();
  await grant(alice, topic, 'broadcast');
  const system: Record<string, unknown>[] = [];
  const bytes: Uint8Array[] = [];
  const channel = alice.client
    .channel(topic, { config: { private: true, broadcast: { replication_ready: true } } })
    .on('system', {}, (message: Record<string, unknown>) => system.push(message))
    .on('broadcast', { event: 'bytes' }, (message) => bytes.push(new Uint8Array(message.payload as ArrayBuffer)));
  await subscribeChannel(channel);
  await waitFor(() => system.length === 1, { message: 'the replication message' });
  assert.equal(system[0], { extension: 'system', status: 'ok', message: 'Replication connection established', channel: topic });
  await sql(`select realtime.send_binary('\\xdeadbeef00ff'::bytea, 'bytes', $1)`, [topic]);
  await waitFor(() => bytes.length === 1, { message: 'the binary message' });
  assert.equal([...bytes[0]!], [0xde, 0xad, 0xbe, 0xef, 0x00, 0xff]);
  // The control: a channel that did not ask gets no replication message.
  const quietSystem: unknown[] = [];
  const quiet = alice.client.channel(nextTopic()).on('system', {}, (message: unknown) => quietSystem.push(message));
  await subscribeChannel(quiet);
  await awaitDatabaseMarker(alice.client, operator);
  assert.equal(quietSystem, []);
  await channel.unsubscribe();
  await quiet.unsubscribe();
});

test('realtime.send() as a role the insert policies refuse is a warning and sends nothing', async () => {
  const topic = nextTopic();
  await grant(alice, topic, 'broadcast');
  const reader = await listen(alice.client, topic, { private: true });
  const notices: string[] = [];
  operator.on('notice', (notice) => notices.push(notice.message ?? ''));
  await sql('begin');
  await sql('set local role authenticated');
  await sql(`select realtime.send('{"n": 1}', 'note', $1)`, [topic]);
  await sql('commit');
  operator.removeAllListeners('notice');
  assert.equal(notices, ['WarnSendingBroadcastMessage: new row violates row-level security policy for table "messages"']);
  await sql(`select realtime.send('{"n": 2}', 'note', $1)`, [topic]);
  await waitFor(() => reader.heard.length === 1, { message: 'the control' });
  assert.equal(reader.heard[0]!.payload.n, 2);
  await alice.client.removeChannel(reader.channel);
});

test("a row trigger calling realtime.broadcast_changes() sends INSERT, UPDATE and DELETE in hosted's shape", async () => {
  await grant(alice, 'room:items', 'broadcast');
  const reader = await listen(alice.client, 'room:items', { private: true });
  await sql(`insert into public.dbcast_items (id, label) values (1, 'stone')`);
  await sql(`update public.dbcast_items set label = 'wood' where id = 1`);
  await sql('delete from public.dbcast_items where id = 1');
  await waitFor(() => reader.heard.length === 3, { message: 'three row changes' });
  const common = { table: 'dbcast_items', schema: 'public' };
  assert.equal(
    reader.heard.map(({ event, payload, meta }) => ({ event, payload, meta: meta?.id === payload.id })),
    [
      { event: 'INSERT', payload: { ...common, operation: 'INSERT', record: { id: 1, label: 'stone' }, old_record: null, id: reader.heard[0]!.payload.id }, meta: true },
      { event: 'UPDATE', payload: { ...common, operation: 'UPDATE', record: { id: 1, label: 'wood' }, old_record: { id: 1, label: 'stone' }, id: reader.heard[1]!.payload.id }, meta: true },
      { event: 'DELETE', payload: { ...common, operation: 'DELETE', record: null, old_record: { id: 1, label: 'wood' }, id: reader.heard[2]!.payload.id }, meta: true },
    ],
  );
  await sql(`select realtime.broadcast_changes('room:items', 'e', 'TRUNCATE', 't', 's', row(1), row(1))`).then(
    () => assert.unreachable('TRUNCATE is refused'),
    (error: Error) => assert.is(error.message, 'Failed to process the row: Unexpected operation type: TRUNCATE'),
  );
  await sql(`select realtime.broadcast_changes('room:items', 'e', 'INSERT', 't', 's', row(1), row(1), 'STATEMENT')`).then(
    () => assert.unreachable('STATEMENT is refused'),
    (error: Error) => assert.is(error.message, 'Failed to process the row: function can only be triggered for each row, not for each statement'),
  );
  await awaitDatabaseMarker(alice.client, operator);
  assert.is(reader.heard.length, 3);
  await alice.client.removeChannel(reader.channel);
});

/** `n` of each heard payload with whether its meta marks it replayed. */
const replayedNumbers = (listener: Listener) => listener.heard.map(({ payload, meta }) => [payload.n, meta?.replayed === true]);

test('persisted sends (socket and httpSend) and realtime.send() messages are replayed on join with meta.replayed; other sends are not', async () => {
  const topic = nextTopic();
  await grant(alice, topic, 'broadcast', true);
  await grant(bob, topic, 'broadcast');
  const since = Date.now();
  const sender = await listen(alice.client, topic, { private: true, broadcast: { ack: true } });
  const unpersisting = await listen(bob.client, topic, { private: true, broadcast: { ack: true } });
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'kept', payload: { n: 1 }, persist: true }), 'ok');
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'fleeting', payload: { n: 2 } }), 'ok');
  assert.equal(await sender.channel.httpSend('kept', { n: 3 }, { persist: true }), { success: true });
  // Bob may broadcast but not store: delivered, not kept.
  assert.is(await unpersisting.channel.send({ type: 'broadcast', event: 'kept', payload: { n: 4 }, persist: true }), 'ok');
  assert.equal(await unpersisting.channel.httpSend('kept', { n: 5 }, { persist: true }), { success: true });
  await sql(`select realtime.send('{"n": 6}', 'kept', $1)`, [topic]);
  // Bob hears everything but his own socket send (no broadcast.self); REST sends reach every member.
  await waitFor(() => unpersisting.heard.length === 5, { message: "the sends and the database's" });
  assert.equal(replayedNumbers(unpersisting), [[1, false], [2, false], [3, false], [5, false], [6, false]]);
  await alice.client.removeChannel(sender.channel);
  await bob.client.removeChannel(unpersisting.channel);

  const replay = await listen(bob.client, topic, { private: true, broadcast: { replay: { since, limit: 10 } } });
  assert.is(replay.status, 'SUBSCRIBED');
  await waitFor(() => replay.heard.length === 3, { message: 'the replayed messages' });
  await awaitDatabaseMarker(bob.client, operator);
  const ids = replay.heard.map((heard) => heard.meta!.id);
  assert.equal(replay.heard, [
    { event: 'kept', payload: { n: 1 }, meta: { replayed: true, id: ids[0]! } },
    { event: 'kept', payload: { n: 3 }, meta: { replayed: true, id: ids[1]! } },
    { event: 'kept', payload: { n: 6, id: ids[2]! }, meta: { replayed: true, id: ids[2]! } },
  ]);
  // The control: without replay a join hears nothing of the past.
  const plain = await listen(alice.client, topic, { private: true });
  await awaitDatabaseMarker(alice.client, operator);
  assert.equal([plain.status, plain.heard], ['SUBSCRIBED', []]);
  await bob.client.removeChannel(replay.channel);
  await alice.client.removeChannel(plain.channel);
});

test('replay honours since and limit, oldest first, and never replays more than 25', async () => {
  const topic = nextTopic();
  await grant(alice, topic, 'broadcast');
  let middle = 0;
  for (let n = 1; n <= 30; n++) {
    await sql(`select realtime.send(jsonb_build_object('n', $2::int), 'kept', $1)`, [topic, n]);
    if (n === 27) {
      // kept: `since` is a time, so the messages before and after it are apart in time
      await sleep(20);
      middle = Date.now();
      await sleep(20);
    }
  }
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => [from + i, true]);
  for (const [replay, expected] of [
    [{ since: 0, limit: 100 }, range(6, 30)],
    [{ since: 0 }, range(6, 30)],
    [{ since: 0, limit: 2 }, range(29, 30)],
    [{ since: 0, limit: 0 }, range(30, 30)],
    [{ since: middle, limit: 10 }, range(28, 30)],
    [{ since: Date.now() + 120_000, limit: 10 }, []],
  ] as const) {
    const listener = await listen(alice.client, topic, { private: true, broadcast: { replay } });
    assert.is(listener.status, 'SUBSCRIBED');
    await waitFor(() => listener.heard.length >= expected.length, { message: () => `the replay of ${JSON.stringify(replay)}` });
    await awaitDatabaseMarker(alice.client, operator);
    assert.equal(replayedNumbers(listener), expected, JSON.stringify(replay));
    await alice.client.removeChannel(listener.channel);
  }
});

test('replay needs broadcast read; public channels and unreadable parameters are refused with hosted reasons', async () => {
  const topic = nextTopic();
  await grant(alice, topic, 'broadcast');
  await grant(carol, topic, 'presence');
  await sql(`select realtime.send('{"n": 1}', 'kept', $1)`, [topic]);
  const refused = `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`;
  const presenceOnly = await listen(carol.client, topic, { private: true, presence: { enabled: true }, broadcast: { replay: { since: 0 } } });
  assert.equal([presenceOnly.status, presenceOnly.reason, presenceOnly.heard], ['CHANNEL_ERROR', refused, []]);
  await carol.client.removeChannel(presenceOnly.channel);
  const outsider = await listen(bob.client, topic, { private: true, broadcast: { replay: { since: 0 } } });
  assert.equal([outsider.status, outsider.reason, outsider.heard], ['CHANNEL_ERROR', refused, []]);
  await bob.client.removeChannel(outsider.channel);
  const unreadable = await listen(alice.client, topic, { private: true, broadcast: { replay: { since: 'yesterday' } } });
  assert.equal([unreadable.status, unreadable.reason], ['CHANNEL_ERROR', 'UnableToReplayMessages: Replay params are not valid']);
  await alice.client.removeChannel(unreadable.channel);

  const socket = await rawSocket(server);
  socket.send(['1', '1', `realtime:${topic}`, 'phx_join', { config: { broadcast: { replay: { since: 0 } } } }]);
  assert.equal(responseOf(await socket.take(replyTo('1'))), {
    status: 'error',
    response: { reason: 'UnableToReplayMessages: Replay is not allowed for public channels' },
  });
  socket.ws.close();
  // The controls: presence-only joins without replay, the reader with it.
  const presence = await listen(carol.client, topic, { private: true, presence: { enabled: true } });
  assert.is(presence.status, 'SUBSCRIBED');
  const reader = await listen(alice.client, topic, { private: true, broadcast: { replay: { since: 0 } } });
  await waitFor(() => reader.heard.length === 1, { message: 'the replay' });
  assert.equal(replayedNumbers(reader), [[1, true]]);
  await carol.client.removeChannel(presence.channel);
  await alice.client.removeChannel(reader.channel);
});

/** A user broadcast push (kind 3) whose metadata asks to persist it. */
function persistedPush(joinRef: string, ref: string, topic: string, event: string, body: Buffer): Buffer {
  const parts = [joinRef, ref, topic, event, '{"persist":true}'].map((text) => Buffer.from(text));
  return Buffer.concat([Buffer.from([3, ...parts.map((part) => part.length), 0]), ...parts, body]);
}

/** Reads a binary user broadcast (kind 4): topic, event, metadata and the raw payload. */
function readBinary(frame: Buffer): { topic: string; event: string; meta: unknown; payload: number[] } {
  const [kind, topicLength, eventLength, metaLength] = frame;
  assert.is(kind, 4);
  let offset = 5;
  const field = (length: number) => frame.toString('utf8', offset, (offset += length));
  const topic = field(topicLength!);
  const event = field(eventLength!);
  const meta = JSON.parse(field(metaLength!)) as unknown;
  return { topic, event, meta, payload: [...frame.subarray(offset)] };
}

test('a persisted binary push on vsn 2.0.0 is acknowledged with its id and replayed as bytes with its meta', async () => {
  const topic = nextTopic();
  await grant(alice, topic, 'broadcast', true);
  const token = await accessToken(alice);
  const sender = await rawSocket(server);
  sender.send(['1', '1', `realtime:${topic}`, 'phx_join', { config: { private: true, broadcast: { ack: true } }, access_token: token }]);
  assert.is(responseOf(await sender.take(replyTo('1'))).status, 'ok');
  sender.send(persistedPush('1', '2', `realtime:${topic}`, 'bytes', Buffer.from([1, 2, 3])));
  const ack = responseOf(await sender.take(replyTo('2')));
  const id = ack.response.id as string;
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal(ack, { status: 'ok', response: { id } });
  // The control: the same push without persist is acknowledged without an id.
  sender.send(binaryPush('1', '3', `realtime:${topic}`, 'bytes', Buffer.from([4]), 0));
  assert.equal(responseOf(await sender.take(replyTo('3'))), { status: 'ok', response: {} });
  sender.ws.close();

  const joiner = await rawSocket(server);
  joiner.send(['1', '1', `realtime:${topic}`, 'phx_join', { config: { private: true, broadcast: { replay: { since: 0 } } }, access_token: token }]);
  assert.is(responseOf(await joiner.take(replyTo('1'))).status, 'ok');
  const frame = (await joiner.take((f) => Buffer.isBuffer(f))) as Buffer;
  assert.equal(readBinary(frame), { topic: `realtime:${topic}`, event: 'bytes', meta: { replayed: true, id }, payload: [1, 2, 3] });
  // A join's replay is written with its reply: a heartbeat answered after it comes after all of it.
  joiner.send([null, 'hb', 'phoenix', 'heartbeat', {}]);
  await joiner.take(replyTo('hb'));
  assert.equal(joiner.frames.filter((f) => Buffer.isBuffer(f)), []);
  joiner.ws.close();
});

test('persist over REST needs a private channel, as hosted validates it', async () => {
  const topic = nextTopic();
  const response = await fetch(`${server.url}/realtime/v1/api/broadcast/${encodeURIComponent(topic)}/events/kept?persist=true`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'Content-Type': 'application/json' },
    body: '{}',
  });
  assert.equal([response.status, await response.json()], [422, { errors: { persist: ['can only be used on private channels'] } }]);
  const control = await fetch(`${server.url}/realtime/v1/api/broadcast/${encodeURIComponent(topic)}/events/kept`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'Content-Type': 'application/json' },
    body: '{}',
  });
  assert.is(control.status, 202);
});

test('a database message over 64 KiB is not delivered (and not replayed); one within the limit is', async () => {
  const topic = nextTopic();
  await grant(alice, topic, 'broadcast');
  const reader = await listen(alice.client, topic, { private: true });
  await sql(`select realtime.send(jsonb_build_object('n', 1, 'b', repeat('x', 70000)), 'big', $1)`, [topic]);
  await sql(`select realtime.send(jsonb_build_object('n', 2, 'b', repeat('x', 1000)), 'big', $1)`, [topic]);
  await waitFor(() => reader.heard.length === 1, { message: 'the message within the limit' });
  await awaitDatabaseMarker(alice.client, operator);
  assert.equal(reader.heard.map(({ payload }) => payload.n), [2]);
  await waitFor(() => server.output().includes('realtime: database broadcasts not delivered: 1 with a payload over 65536 bytes'), {
    message: 'the log line',
  });
  await alice.client.removeChannel(reader.channel);
  const replayer = await listen(alice.client, topic, { private: true, broadcast: { replay: { since: 0 } } });
  await waitFor(() => replayer.heard.length === 1, { message: 'the replay' });
  await awaitDatabaseMarker(alice.client, operator);
  assert.equal(replayedNumbers(replayer), [[2, true]]);
  await alice.client.removeChannel(replayer.channel);
});

test('a flood of realtime.send() calls delivers at most 100 messages of one topic at once and 1000 a second; the rest stay stored', async () => {
  await sleep(1100); // kept: the 1000-a-second budget refills over a second
  const flooded = nextTopic();
  const control = nextTopic();
  await grant(alice, flooded, 'broadcast');
  await grant(alice, control, 'broadcast');
  const floodReader = await listen(alice.client, flooded, { private: true });
  const controlReader = await listen(alice.client, control, { private: true });
  await sql(`select realtime.send(jsonb_build_object('n', i), 'flood', $1) from generate_series(1, 150) i`, [flooded]);
  await sql(`select realtime.send(jsonb_build_object('n', i), 'flood', $1) from generate_series(1, 100) i`, [control]);
  await waitFor(() => controlReader.heard.length === 100, { message: 'the control statement' });
  await awaitDatabaseMarker(alice.client, operator);
  const numbers = (listener: Listener) => listener.heard.map(({ payload }) => payload.n);
  assert.equal(numbers(controlReader), Array.from({ length: 100 }, (_, i) => i + 1));
  assert.equal(numbers(floodReader), Array.from({ length: 100 }, (_, i) => i + 1));
  await waitFor(() => server.output().includes('realtime: database broadcasts not delivered: 50 past 100 of one topic at once'), { message: 'the log line' });
  const [{ stored }] = (await sql('select count(*)::int as stored from realtime.messages where topic = $1', [flooded])).rows;
  assert.is(stored, 150);

  // 11 topics of 100 at once, each with a member: the second's budget lets 1000 through.
  await sleep(1100); // kept: a full second's budget again
  const topics = Array.from({ length: 11 }, () => nextTopic());
  for (const topic of topics) await grant(alice, topic, 'broadcast');
  const readers: Listener[] = [];
  for (const topic of topics) readers.push(await listen(alice.client, topic, { private: true }));
  await sql(`select realtime.send(jsonb_build_object('n', i), 'wide', ($1::text[])[(i - 1) / 100 + 1]) from generate_series(1, 1100) i`, [topics]);
  await waitFor(() => readers[9]!.heard.length === 100, { message: 'the tenth topic' });
  await waitFor(() => server.output().includes('realtime: database broadcasts not delivered: 100 past 1000 a second'), { message: 'the log line' });
  await awaitDatabaseMarker(alice.client, operator);
  assert.equal(readers.map((reader) => reader.heard.length), [100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 0]);
  for (const listener of [floodReader, controlReader, ...readers]) await alice.client.removeChannel(listener.channel);
});

test('one insert statement into realtime.messages hands at most 1000 messages to Realtime', async () => {
  await sleep(1100); // kept: a full second's budget of database broadcasts, so only the statement bound refuses
  const topics = Array.from({ length: 11 }, () => nextTopic());
  for (const topic of topics) await grant(alice, topic, 'broadcast');
  const first = await listen(alice.client, topics[0]!, { private: true });
  const last = await listen(alice.client, topics[10]!, { private: true });
  await sql(
    `insert into realtime.messages (topic, extension, event, payload, private)
     select ($1::text[])[(i - 1) / 100 + 1], 'broadcast', 'wide', jsonb_build_object('n', i), true from generate_series(1, 1100) i`,
    [topics],
  );
  await waitFor(() => first.heard.length === 100, { message: 'the first topic' });
  await waitFor(() => server.output().includes('realtime: database broadcasts not delivered: 100 past 1000 of one statement'), { message: 'the log line' });
  await awaitDatabaseMarker(alice.client, operator);
  assert.equal([first.heard.length, last.heard.length], [100, 0]);
  // The control: the next statement is delivered.
  await sql(`insert into realtime.messages (topic, extension, event, payload, private) values ($1, 'broadcast', 'wide', '{"n": 1}', true)`, [topics[10]]);
  await waitFor(() => last.heard.length === 1, { message: 'the control' });
  for (const listener of [first, last]) await alice.client.removeChannel(listener.channel);
});

test.run();
