/**
 * The migrations on PostgreSQL set up like a new hosted Supabase project: a separate cluster
 * whose owning role is not a superuser (as hosted's `postgres` is not), Supabase's request roles,
 * an `auth` schema and helper functions owned by the auth server's role, the `supabase_realtime`
 * publication and no default privileges on `public`. The server applies the migrations as that
 * owner, and every game operation runs through the real supabase-js client as on the embedded
 * server: a migration that forgets a grant fails here with `permission denied`.
 */
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startCluster, type Cluster } from '../../../server/db/cluster.js';
import { createTestClient, makeDataDir, removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { createRules, enterAtSpawn, nameOf, type Rules } from '../../support/rules.js';
import { HOSTED_PROJECT_SQL, OWNER, OWNER_PASSWORD } from '../../support/hosted-project.js';
import { subscribeChannel } from '../../support/live.js';

/** Every migration in supabase/migrations, by version, as the Supabase CLI records them. */
const migrationVersions = readdirSync('supabase/migrations').filter((name) => name.endsWith('.sql')).map((name) => name.split('_')[0]!).sort();

let cluster: Cluster;
let clusterDir: string;
let dataDir: string;
let server: TestServer;
let rules: Rules;
let alice: TestPlayer;
let bob: TestPlayer;

/** A superuser connection to the hosted-like cluster. */
async function asSuperuser<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(cluster.connection);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// A set-up failure is printed: uvu's before hook would not show it.
test.before(async () => {
  try {
    await setUp();
  } catch (error) {
    console.error('hosted-like set-up failed:', error);
    throw error;
  }
});

/** Sets up the hosted-like project in a new cluster and starts the server on it as the owner. */
async function setUp(): Promise<void> {
  clusterDir = await makeDataDir();
  dataDir = await makeDataDir();
  cluster = await startCluster(clusterDir, { tcp: true });
  await asSuperuser((client) => client.query(HOSTED_PROJECT_SQL));
  const { host, port, database } = cluster.connection;
  server = await startTestServer(dataDir, { DATABASE_URL: `postgres://${OWNER}:${OWNER_PASSWORD}@${host}:${port}/${database}` });
  const reader = await signInPlayer(server);
  rules = createRules(reader);
  [alice, bob] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
}

test.after(async () => {
  await server?.stop();
  await cluster?.stop();
  if (clusterDir) await removeDataDir(clusterDir);
  if (dataDir) await removeDataDir(dataDir);
});

test('the server connects as a role without superuser, which owns every migrated object', async () => {
  const { rows } = await asSuperuser((client) => client.query(`
    select r.rolsuper as superuser,
           (select array_agg(distinct pg_get_userbyid(c.relowner)::text) from pg_class c
              join pg_namespace n on n.oid = c.relnamespace where n.nspname in ('public', 'game_private')) as owners,
           (select array_agg(version order by version) from supabase_migrations.schema_migrations) as versions,
           (select count(*)::int from pg_default_acl) as default_privileges
    from pg_roles r where r.rolname = '${OWNER}'`));
  assert.equal(rows[0], {
    superuser: false,
    owners: [OWNER],
    versions: migrationVersions,
    default_privileges: 0,
  });
});

test('presence at spawn, then the players list', async () => {
  await Promise.all([enterAtSpawn(alice), enterAtSpawn(bob)]);
  const { data, error } = await alice.client.from('game_players').select('player_id, player_name, x, y').in('player_id', [alice.address, bob.address]).order('player_id');
  assert.is(error, null, JSON.stringify(error));
  const expected = [alice, bob].map((p) => ({ player_id: p.address, player_name: nameOf(p), x: 0, y: 0 })).sort((a, b) => (a.player_id < b.player_id ? -1 : 1));
  assert.equal(data, expected);
});

test('a block placed, changed and removed in view; the edit history records the change and the removal', async () => {
  const place = await alice.client.from('game_blocks').insert({ x: -10, y: -8, block_type: 'stone', player_id: alice.address, player_name: nameOf(alice) }).select('x, y, block_type').single();
  assert.is(place.error, null, JSON.stringify(place.error));
  assert.equal(place.data, { x: -10, y: -8, block_type: 'stone' });
  const change = await alice.client.from('game_blocks').update({ block_type: 'gold' }).eq('x', -10).eq('y', -8).select('block_type').single();
  assert.is(change.error, null, JSON.stringify(change.error));
  assert.is(change.data!.block_type, 'gold');
  const remove = await alice.client.from('game_blocks').delete().eq('x', -10).eq('y', -8).select('x');
  assert.is(remove.error, null, JSON.stringify(remove.error));
  assert.equal(remove.data, [{ x: -10 }]);
  const left = await bob.client.from('game_blocks').select('x').eq('x', -10).eq('y', -8);
  assert.equal(left.data, []);
  const edits = await alice.client.from('game_block_edits').select('actor_id, before_type, after_type').eq('x', -10).eq('y', -8).order('id');
  assert.is(edits.error, null, JSON.stringify(edits.error));
  assert.equal(edits.data, [
    { actor_id: alice.address, before_type: null, after_type: 'stone' },
    { actor_id: alice.address, before_type: 'stone', after_type: 'gold' },
    { actor_id: alice.address, before_type: 'gold', after_type: null },
  ]);
});

test('chat is written and read back; a voice clip is stored', async () => {
  const chat = await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: nameOf(alice), message: 'hello hosted' }).select('id').single();
  assert.is(chat.error, null, JSON.stringify(chat.error));
  const read = await bob.client.from('game_chat_messages').select('player_name, message').eq('id', chat.data!.id);
  assert.equal(read.data, [{ player_name: nameOf(alice), message: 'hello hosted' }]);
  const voice = await bob.client.from('game_voice_messages').insert({ player_id: bob.address, player_name: nameOf(bob), audio_data: 'AAAA', x: 0, y: 0 }).select('player_id').single();
  assert.is(voice.error, null, JSON.stringify(voice.error));
  assert.equal(voice.data, { player_id: bob.address });
});

test('a hit between two present players outside spawn lands and costs the victim 25 health', async () => {
  await Promise.all([rules.walkTo(alice, 100, 0), rules.walkTo(bob, 100, 30)]);
  const hit = await rules.attack(alice, bob);
  assert.is(hit.error, null, JSON.stringify(hit.error));
  assert.is((await rules.beat(bob, 100, 30, { health: 100 })).data!.health, 75);
  const log = await bob.client.from('game_combat_logs').select('attacker_id, victim_id, damage').eq('victim_id', bob.address);
  assert.equal(log.data, [{ attacker_id: alice.address, victim_id: bob.address, damage: 25 }]);
});

test('stats are upserted and read; held names are readable', async () => {
  const stats = await alice.client.from('game_player_stats').upsert({ player_id: alice.address, player_name: nameOf(alice), damage_dealt: 25 }, { onConflict: 'player_id' });
  assert.is(stats.error, null, JSON.stringify(stats.error));
  const read = await bob.client.from('game_player_stats').select('player_id, damage_dealt').eq('player_id', alice.address);
  assert.is(read.error, null, JSON.stringify(read.error));
  assert.equal(read.data, [{ player_id: alice.address, damage_dealt: 25 }]);
  const held = await bob.client.from('game_held_names').select('player_id').eq('player_id', alice.address);
  assert.is(held.error, null, JSON.stringify(held.error));
  assert.equal(held.data, [{ player_id: alice.address }]);
});

test('a land claim: made, budgeted, refusing a stranger, trusting a member, abandoned', async () => {
  const made = await alice.client.from('game_claims').insert({ owner_id: alice.address, owner_name: nameOf(alice), x1: -10, y1: 4, x2: -6, y2: 8 }).select('id, owner_name').single();
  assert.is(made.error, null, JSON.stringify(made.error));
  const budget = await alice.client.rpc('claim_budget');
  assert.is(budget.error, null, JSON.stringify(budget.error));
  assert.equal(budget.data, { total: 400, used: 25, available: 375 });
  const block = () => bob.client.from('game_blocks').insert({ x: -8, y: 6, block_type: 'stone', player_id: bob.address, player_name: nameOf(bob) });
  const refused = await block();
  assert.equal([refused.error?.code, refused.error?.message], ['42501', `This land is claimed by ${nameOf(alice)}.`]);
  const trusted = await alice.client.from('game_claim_members').insert({ claim_id: made.data!.id, player_id: bob.address });
  assert.is(trusted.error, null, JSON.stringify(trusted.error));
  assert.is((await block()).error, null);
  assert.is((await alice.client.from('game_claims').delete().eq('id', made.data!.id)).error, null);
  assert.equal((await bob.client.from('game_claim_members').select('player_id').eq('claim_id', made.data!.id)).data, []);
});

test('a chat message reaches a subscribed player over Realtime', async () => {
  let received: (row: Record<string, unknown>) => void;
  const arrived = new Promise<Record<string, unknown>>((resolve) => (received = resolve));
  const channel = bob.client.channel('hosted-like-chat')
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_chat_messages' }, (payload) => received(payload.new));
  await subscribeChannel(channel);
  let timer: NodeJS.Timeout | undefined;
  try {
    const sent = await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: nameOf(alice), message: 'live' });
    assert.is(sent.error, null, JSON.stringify(sent.error));
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no Realtime INSERT within 5 s')), 5000)));
    const row = await Promise.race([arrived, timeout]);
    assert.equal([row.player_id, row.message], [alice.address, 'live']);
  } finally {
    clearTimeout(timer);
    await bob.client.removeChannel(channel);
  }
});

test('anon reads get empty lists and anon writes are refused', async () => {
  const anon = createTestClient(server);
  for (const table of ['game_players', 'game_blocks', 'game_chat_messages', 'game_voice_messages', 'game_combat_logs', 'game_player_stats', 'game_claims', 'game_claim_members']) {
    // Voice clips are read one at a time (docs/rest-bounds.md, TS106).
    const { data, error } = await anon.from(table).select('*').limit(table === 'game_voice_messages' ? 1 : 1000);
    assert.is(error, null, `${table}: ${JSON.stringify(error)}`);
    assert.equal(data, [], table);
  }
  const chat = await anon.from('game_chat_messages').insert({ player_id: alice.address, player_name: nameOf(alice), message: 'as anon' });
  assert.is(chat.error?.code, '42501', JSON.stringify(chat.error));
  const block = await anon.from('game_blocks').insert({ x: 9, y: 8, block_type: 'stone', player_id: alice.address, player_name: nameOf(alice) });
  assert.is(block.error?.code, '42501', JSON.stringify(block.error));
});

test.run();
