/**
 * A postgres_changes event never tells a subscriber more than a read would: for EVERY table of
 * the supabase_realtime publication (read from pg_publication_tables, so a table published
 * later is walked too and fails here until it has a row below), a row is inserted, updated and
 * deleted by the database owner while an anonymous client, an unrelated signed-in player and
 * the row's owner each follow every published table. Each of them must hear an insert or update
 * exactly when it can read the row through REST afterwards, and the delete exactly when it
 * could read the row before (no key of a row it could not read), and the owner hears all three
 * (the honest path). An update whose old row the reader could not have read comes with an empty
 * old record.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { connectAsOperator } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';
import { createTestClient, createTestWallet, removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { subscribeChannel } from '../../support/live.js';
import { nameOf } from '../../support/rules.js';

/** A published table's row of the owner, and the change an update makes to it. */
interface Fixture {
  row: Record<string, unknown>;
  update: Record<string, unknown>;
}

/** The wallet on the other side of a row (a report's reported player, a hit's victim). */
const OTHER = createTestWallet().address;

/** One row per published table, owned by `owner`. */
const ROWS: Record<string, (owner: TestPlayer) => Fixture> = {
  game_bans: (o) => ({ row: { player_id: o.address, scope: 'chat', reason: 'spam' }, update: { reason: 'spam again' } }),
  game_blocks: (o) => ({ row: { x: 100, y: 100, block_type: 'stone', player_id: o.address, player_name: nameOf(o) }, update: { block_type: 'wood' } }),
  game_chat_messages: (o) => ({ row: { player_id: o.address, player_name: nameOf(o), message: 'hello' }, update: { message: 'hello again' } }),
  game_combat_logs: (o) => ({
    row: { attacker_id: o.address, attacker_name: nameOf(o), victim_id: OTHER, victim_name: `P${OTHER.slice(0, 8)}`, x: 0, y: 0 },
    update: { x: 1 },
  }),
  game_player_stats: (o) => ({ row: { player_id: o.address, player_name: nameOf(o) }, update: { damage_dealt: 5 } }),
  game_players: (o) => ({ row: { player_id: o.address, player_name: nameOf(o) }, update: { x: 3 } }),
  game_reports: (o) => ({ row: { reporter_id: o.address, reported_id: OTHER, reason: 'spam' }, update: { note: 'seen' } }),
  game_voice_messages: (o) => ({ row: { player_id: o.address, player_name: nameOf(o), audio_data: 'AAAA', x: 0, y: 0 }, update: { audio_data: 'BBBB' } }),
};

/** A subscriber following every published table: what it heard, as `table TYPE`, and the payloads. */
interface Follower {
  name: string;
  client: SupabaseClient;
  heard: { table: string; type: string; record: Record<string, unknown>; old: Record<string, unknown> }[];
  barriers: number[];
  channel?: RealtimeChannel;
}

let server: TestServer;
let operator: pg.Client;
let owner: TestPlayer;
let stranger: TestPlayer;
let followers: Follower[];
let tables: { name: string; pk: string[] }[];
let barrier = 0;

/** Inserts a barrier row every follower hears: one socket's events arrive in commit order, so all before it have been sent or withheld. */
async function settle(): Promise<void> {
  const id = ++barrier;
  await operator.query('insert into public.read_barrier (id) values ($1)', [id]);
  await waitFor(() => followers.every((f) => f.barriers.includes(id)), { timeout: 5000, interval: 10, message: `barrier ${id}` });
}

async function follow(name: string, client: SupabaseClient): Promise<Follower> {
  const follower: Follower = { name, client, heard: [], barriers: [] };
  const channel = client.channel(`reads-${name}`);
  for (const table of tables) {
    channel.on('postgres_changes', { event: '*', schema: 'public', table: table.name }, (change) => {
      follower.heard.push({ table: table.name, type: change.eventType, record: change.new as Record<string, unknown>, old: change.old as Record<string, unknown> });
    });
  }
  channel.on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'read_barrier' }, (change) => follower.barriers.push((change.new as { id: number }).id));
  follower.channel = await subscribeChannel(channel);
  return follower;
}

/** Whether `follower` can read the row of `table` with primary key `key` through REST. */
async function canRead(follower: Follower, table: string, key: Record<string, unknown>): Promise<boolean> {
  const { data, error } = await follower.client.from(table).select('*').match(key);
  return !error && data.length === 1;
}

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  const { rows } = await operator.query<{ name: string; pk: string[] }>(`
    select p.tablename as name,
      array(select a.attname::text from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
            where i.indrelid = format('%I.%I', p.schemaname, p.tablename)::regclass and i.indisprimary) as pk
    from pg_publication_tables p where p.pubname = 'supabase_realtime' order by p.tablename`);
  tables = rows;
  // The owner writes the rows as they are, without the game's rules (which would want a player in the world);
  // the capture triggers stay on.
  for (const { name } of tables) {
    await operator.query(`alter table public.${name} disable trigger user`);
    for (const trigger of ['realtime_capture_insert', 'realtime_capture_update', 'realtime_capture_updated', 'realtime_capture_delete']) {
      await operator.query(`alter table public.${name} enable trigger ${trigger}`);
    }
  }
  await operator.query(`
    create table public.read_barrier (id int primary key);
    grant select on public.read_barrier to anon, authenticated;
    alter publication supabase_realtime add table public.read_barrier;`);
  owner = await signInPlayer(server);
  stranger = await signInPlayer(server);
  followers = [await follow('anon', createTestClient(server)), await follow('stranger', stranger.client), await follow('owner', owner.client)];
});

test.after(async () => {
  for (const follower of followers) await follower.client.removeAllChannels();
  await operator.end();
  await server.stop();
  await removeDataDir(server.dataDir);
});

test('every published table: inserts, updates and deletes reach exactly those who can read the row; its owner hears all three', async () => {
  assert.ok(tables.length >= 8, `the game publishes its tables (${tables.map((t) => t.name).join(', ')})`);
  const heardBy = new Map<string, string[]>();
  for (const { name: table, pk } of tables) {
    const fixture = ROWS[table];
    assert.ok(fixture, `${table} is published: give it a row in ROWS, so that this test checks what its events tell`);
    const { row, update } = fixture(owner);
    const columns = Object.keys(row).map((c) => `"${c}"`).join(', ');
    const inserted = await operator.query(`insert into public.${table} (${columns}) select ${columns} from json_populate_record(null::public.${table}, $1) returning *`, [row]);
    const key = Object.fromEntries(pk.map((column) => [column, inserted.rows[0][column]]));
    const keyMatch = `(${pk.map((c) => `t."${c}"`).join(', ')}) = (select ${pk.map((c) => `k."${c}"`).join(', ')} from json_populate_record(null::public.${table}, $1) k)`;
    await settle();
    const readAfterInsert = await Promise.all(followers.map((f) => canRead(f, table, key)));
    const sets = Object.keys(update).map((c) => `"${c}" = u."${c}"`).join(', ');
    await operator.query(`update public.${table} t set ${sets} from json_populate_record(null::public.${table}, $2) u where ${keyMatch}`, [key, update]);
    await settle();
    const readAfterUpdate = await Promise.all(followers.map((f) => canRead(f, table, key)));
    await operator.query(`delete from public.${table} t where ${keyMatch}`, [key]);
    await settle();
    followers.forEach((follower, i) => {
      const heard = follower.heard.filter((event) => event.table === table).map((event) => event.type);
      const expected = [readAfterInsert[i] && 'INSERT', readAfterUpdate[i] && 'UPDATE', readAfterUpdate[i] && 'DELETE'].filter(Boolean);
      assert.equal(heard, expected, `${follower.name} on ${table}`);
      heardBy.set(`${follower.name} ${table}`, heard);
    });
  }
  // The honest path, and the finding this guards against: nothing of a ban reaches a stranger or an anonymous client.
  for (const { name } of tables) assert.equal(heardBy.get(`owner ${name}`), ['INSERT', 'UPDATE', 'DELETE'], `owner on ${name}`);
  for (const name of ['game_bans', 'game_reports']) {
    assert.equal(heardBy.get(`stranger ${name}`), [], `stranger on ${name}`);
    assert.equal(heardBy.get(`anon ${name}`), [], `anon on ${name}`);
  }
  assert.equal(heardBy.get('stranger game_blocks'), ['INSERT', 'UPDATE', 'DELETE'], 'a row every player may read is heard by every player');
});

test('an update whose old row the reader could not have read comes with an empty old record; one it could read keeps its key', async () => {
  for (const follower of followers) follower.heard.length = 0;
  const { rows } = await operator.query<{ id: string }>(
    `insert into public.game_reports (reporter_id, reported_id, reason) values ($1, $2, 'spam'), ($2, $1, 'cheating') returning id`,
    [OTHER, owner.address],
  );
  const [unseen, owned] = rows.map((row) => Number(row.id));
  await settle();
  // The first report passes to the stranger: the stranger can read it now, but could not before.
  await operator.query('update public.game_reports set reporter_id = $1 where id = $2', [stranger.address, unseen]);
  await operator.query("update public.game_reports set note = 'seen' where id = $1", [owned]);
  await settle();
  const updates = (name: string) => followers.find((f) => f.name === name)!.heard.filter((e) => e.type === 'UPDATE').map((e) => [e.record.id, e.old]);
  assert.equal(updates('stranger'), [[unseen, {}]]);
  assert.equal(updates('owner'), [[owned, { id: owned }]]);
  assert.equal(updates('anon'), []);
});

test.run();
