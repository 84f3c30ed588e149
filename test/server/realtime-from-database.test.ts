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
import { connectAsOperator } from '../support/server.js';
import { waitFor } from '../support/wait.js';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from './harness.js';
import { accessToken, binaryPush, rawSocket, replyTo, responseOf } from './live-support.js';

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

async function userId(player: TestPlayer): Promise<string> {
  const { data } = await player.client.auth.getSession();
  return data.session!.user.id;
}

/** Lets `reader` read (and write) `extension` messages of `topic`; `persist` also lets it store broadcasts. */
async function grant(reader: TestPlayer, topic: string, extension: 'broadcast' | 'presence', persist = false): Promise<void> {
  await operator.query('insert into room_access.members (topic, member, extension, persist) values ($1, $2, $3, $4)', [
    topic,
    await userId(reader),
    extension,
    persist,
  ]);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
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
  await settle();
  assert.is(reader.heard.length, 1);
  assert.equal(presenceOnly.heard, []);
  for (const listener of [reader, presenceOnly]) await listener.channel.unsubscribe();
  await anonClient.removeChannel(publicMember.channel);
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
  await settle();
  assert.is(reader.heard.length, 3);
  await alice.client.removeChannel(reader.channel);
});

test.run();
