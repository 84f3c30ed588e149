import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDataDir, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { twoPlayersAtSpawn } from '../../support/rules.js';
import { minimapPlayersFromBlocks } from '../../../net/minimap.js';
import { readActivity } from '../../../net/online.js';
import { sleep } from '../../support/wait.js';

let server: TestServer;
let alice: TestPlayer;
let bob: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  // Building and voice need a fresh presence row; blocks stay in view of it.
  [alice, bob] = await twoPlayersAtSpawn(server, ['Alice', 'Bob']);
});

test.after(async () => {
  await server.stop();
  await removeDataDir(server.dataDir);
});


test('send chat and load chat history (ordered, limit 50)', async () => {
  for (const message of ['first', 'second']) {
    const { error, status, data } = await alice.client
      .from('game_chat_messages')
      .insert({ player_id: alice.address, player_name: 'Alice', message });
    assert.is(error, null);
    assert.is(status, 201);
    assert.is(data, null);
  }
  const { data, error } = await bob.client
    .from('game_chat_messages')
    .select('*')
    .order('created_at', { ascending: true })
    .limit(50);
  assert.is(error, null);
  assert.equal(data!.map((m) => m.message), ['first', 'second']);
  assert.equal(Object.keys(data![0]!).sort(), ['created_at', 'id', 'message', 'player_id', 'player_name']);
  assert.match(data![0]!.id, /^[0-9a-f-]{36}$/);
});

test('place block, load world, remove block returning the rows', async () => {
  const place = await alice.client
    .from('game_blocks')
    .insert({ x: 10, y: -4, block_type: 'stone', player_id: alice.address, player_name: 'Alice' });
  assert.is(place.error, null);
  assert.is(place.status, 201);
  const world = await bob.client.from('game_blocks').select('*');
  assert.is(world.error, null);
  assert.equal(world.data!.map((b) => [b.x, b.y, b.block_type]), [[10, -4, 'stone']]);
  const removed = await bob.client.from('game_blocks').delete().eq('x', 10).eq('y', -4).select();
  assert.is(removed.error, null);
  assert.is(removed.status, 200);
  assert.is(removed.data!.length, 1);
  assert.is(removed.data![0]!.player_id, alice.address);
  const again = await bob.client.from('game_blocks').delete().eq('x', 10).eq('y', -4).select();
  assert.equal(again.data, []);
});

test('online count and minimap positions read the last 5 minutes, one latest block per player', async () => {
  await alice.client.from('game_blocks').insert({ x: 11, y: 3, block_type: 'wood', player_id: alice.address, player_name: 'Alice' });
  await bob.client.from('game_blocks').insert({ x: 12, y: 3, block_type: 'glass', player_id: bob.address, player_name: 'Bob' });
  const second = await bob.client.from('game_blocks').insert({ x: 12, y: 4, block_type: 'glass', player_id: bob.address, player_name: 'Bob' });
  assert.is(second.error, null);
  const online = await readActivity(alice.client, Date.now());
  assert.equal([...online.keys()].sort(), [alice.address, bob.address].sort());
  const minimap = await minimapPlayersFromBlocks(alice.client, alice.address, Date.now(), 0, 0);
  assert.equal(minimap.map((p) => [p.id, p.name, p.x, p.y]), [[bob.address, 'Bob', 12 * 32, 4 * 32]]);
  // Only what is within the minimap's 100 tiles around the player.
  assert.equal(await minimapPlayersFromBlocks(alice.client, alice.address, Date.now(), 200, 0), []);
});

test('a player cannot write the latest-block summary: the database keeps it', async () => {
  const { error } = await alice.client.from('game_block_activity').upsert({ player_id: alice.address, player_name: 'Alice', x: 900, y: 900, placed_at: new Date().toISOString() });
  assert.is(error?.code, '42501');
  const { data } = await alice.client.from('game_block_activity').select('x, y').eq('player_id', alice.address).single();
  assert.equal(data, { x: 11, y: 3 });
});

test("send voice stores the clip at the sender's tile", async () => {
  const audio = Buffer.alloc(30_000, 7).toString('base64');
  const { error } = await alice.client
    .from('game_voice_messages')
    .insert({ player_id: alice.address, player_name: 'Alice', audio_data: audio, x: 3, y: -7 });
  assert.is(error, null);
  // A read of audio returns one clip at a time (docs/rest-bounds.md, TS106).
  const { data } = await bob.client.from('game_voice_messages').select('audio_data, x, y').limit(1).single();
  assert.equal(data, { audio_data: audio, x: 0, y: 0 }, 'the server sets x and y from the presence row');
});

const presence = (player: TestPlayer, name: string, x: number) => ({
  player_id: player.address,
  player_name: name,
  x,
  y: 64,
  health: 100,
  max_health: 100,
  level: 1,
  appearance: { skinColor: '#FFDBAC', hairStyle: 'short' },
  is_swinging: false,
  last_seen: new Date().toISOString(),
  updated_at: new Date().toISOString(),
});

test('presence upsert on player_id, load players, leave', async () => {
  await alice.client.from('game_players').delete().eq('player_id', alice.address);
  const first = await alice.client.from('game_players').upsert(presence(alice, 'Alice', 10), { onConflict: 'player_id' }).select();
  assert.is(first.error, null);
  assert.is(first.status, 201);
  // Moving 89 px needs the movement budget (225 px/s, docs/rules.md "Movement") to cover it: 0.5 s does.
  await sleep(500); // kept: the budget refills with time
  const second = await alice.client.from('game_players').upsert(presence(alice, 'Alice', 99), { onConflict: 'player_id' }).select();
  assert.is(second.error, null);
  assert.is(second.status, 200);
  assert.is(second.data![0]!.x, 99);
  assert.equal(second.data![0]!.appearance, { skinColor: '#FFDBAC', hairStyle: 'short' });
  await bob.client.from('game_players').upsert(presence(bob, 'Bob', 5), { onConflict: 'player_id' });

  const others = await bob.client
    .from('game_players')
    .select('*')
    .neq('player_id', bob.address)
    .gte('last_seen', new Date(Date.now() - 30_000).toISOString());
  assert.is(others.error, null);
  assert.equal(others.data!.map((p) => [p.player_name, p.x]), [['Alice', 99]]);

  const leave = await alice.client.from('game_players').delete().eq('player_id', alice.address);
  assert.is(leave.error, null);
  assert.is(leave.status, 204);
  const { count } = await bob.client.from('game_players').select('*', { count: 'exact', head: true });
  assert.is(count, 1);
});

test('attack writes a combat log and upserts stats', async () => {
  // Both players stand just outside spawn, side by side, with fresh presence rows; Bob walks
  // 94 px there, which the movement budget covers after 0.5 s.
  await sleep(500); // kept: the budget refills with time
  for (const [player, name] of [[alice, 'Alice'], [bob, 'Bob']] as const) {
    const beat = await player.client.from('game_players').upsert(presence(player, name, 99), { onConflict: 'player_id' });
    assert.is(beat.error, null);
  }
  const log = await alice.client.from('game_combat_logs').insert({
    attacker_id: alice.address,
    attacker_name: 'Alice',
    victim_id: bob.address,
    victim_name: 'Bob',
    damage: 25,
    weapon_type: 'sword',
    x: 40,
    y: 2,
    attacker_x: 99,
    attacker_y: 64,
  });
  assert.is(log.error, null);
  const stats = await alice.client
    .from('game_player_stats')
    .upsert({ player_id: alice.address, player_name: 'Alice', damage_dealt: 25 }, { onConflict: 'player_id' });
  assert.is(stats.error, null);
  const { data } = await bob.client.from('game_player_stats').select('player_id, damage_dealt').eq('player_id', alice.address).single();
  assert.equal(data, { player_id: alice.address, damage_dealt: 25 });
  const mine = await bob.client.from('game_combat_logs').select('attacker_id, damage').eq('victim_id', bob.address);
  assert.equal(mine.data, [{ attacker_id: alice.address, damage: 25 }]);
});

test('filters in and is, order desc, range and count=exact with Content-Range', async () => {
  const rows = [5, 6, 7, 8].map((x) => ({ x, y: 9, block_type: 'brick', player_id: alice.address, player_name: 'Alice' }));
  const inserted = await alice.client.from('game_blocks').insert(rows).select('x');
  assert.is(inserted.error, null);
  assert.equal(inserted.data, [{ x: 5 }, { x: 6 }, { x: 7 }, { x: 8 }]);
  const picked = await alice.client.from('game_blocks').select('x').in('x', [6, 8, 99]).order('x', { ascending: false });
  assert.equal(picked.data, [{ x: 8 }, { x: 6 }]);
  const page = await alice.client.from('game_blocks').select('x', { count: 'exact' }).eq('y', 9).order('x').range(1, 2);
  assert.equal(page.data, [{ x: 6 }, { x: 7 }]);
  assert.is(page.count, 4);
  const res = await fetch(`${server.url}/rest/v1/game_blocks?select=x&y=eq.9&order=x&offset=1&limit=2`, {
    headers: { apikey: server.anonKey, authorization: `Bearer ${(await alice.client.auth.getSession()).data.session!.access_token}`, prefer: 'count=exact' },
  });
  assert.is(res.headers.get('content-range'), '1-2/4');
  const nulls = await alice.client.from('game_players').select('player_id').is('appearance', null);
  assert.equal(nulls.data, []);
});

test('ignore-duplicates upsert keeps the first row', async () => {
  const row = { x: 12, y: -6, block_type: 'gold', player_id: alice.address, player_name: 'Alice' };
  await alice.client.from('game_blocks').insert(row);
  const { error } = await alice.client.from('game_blocks').upsert({ ...row, block_type: 'iron' }, { onConflict: 'x,y', ignoreDuplicates: true });
  assert.is(error, null);
  const { data } = await alice.client.from('game_blocks').select('block_type').eq('x', 12).eq('y', -6).single();
  assert.equal(data, { block_type: 'gold' });
});

test('single() on no rows is 406 PGRST116; maybeSingle() is null', async () => {
  const single = await alice.client.from('game_blocks').select('*').eq('x', 9999).single();
  assert.is(single.status, 406);
  assert.is(single.error!.code, 'PGRST116');
  const maybe = await alice.client.from('game_blocks').select('*').eq('x', 9999).maybeSingle();
  assert.is(maybe.error, null);
  assert.is(maybe.data, null);
});

test('update with filters changes own rows', async () => {
  const { data, error } = await alice.client.from('game_blocks').update({ block_type: 'diamond' }).eq('x', 12).eq('y', -6).select('block_type');
  assert.is(error, null);
  assert.equal(data, [{ block_type: 'diamond' }]);
});

test('values travel as literals: quotes, backslashes and dollars come back as sent, and a NUL is refused as PostgreSQL refuses it', async () => {
  const message = `it's \\ "$1" $$ $2 E'\\'' ;--`;
  const sent = await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message }).select('message').single();
  assert.is(sent.error, null);
  assert.equal(sent.data, { message });
  const found = await bob.client.from('game_chat_messages').select('message').eq('message', message).in('player_id', [alice.address, 'a"b,c']);
  assert.equal(found.data, [{ message }]);
  const nul = await bob.client.from('game_chat_messages').select('message').eq('message', 'a\u0000b');
  assert.equal([nul.status, nul.error?.code, nul.error?.message], [400, '22021', 'invalid byte sequence for encoding "UTF8": 0x00']);
});

test.run();
