/**
 * Updates obey the rules that inserts and deletes obey, table by table: each hostile UPDATE (or
 * upsert) a client that read the source could send, refused with its exact error or replaced
 * by the server's value, beside the honest update or upsert that still works.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isWaterTile, WORLD_SEED } from '../../../../components/terrain.js';
import { createServiceClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { blockRow, createRules, enterAtSpawn, nameOf, playerAtSpawn, tilesInViewOfSpawn, type Rules } from '../../../support/rules.js';

let server: TestServer;
let service: SupabaseClient;
let rules: Rules;
let reader: TestPlayer;
let builder: TestPlayer;
let mason: TestPlayer;
let walker: TestPlayer;

/** A shore west of spawn: land at tile (-31, -32), water from x -30 to -27 on row -32. */
const ROW = -32;
const LAND = -31;
const LONE_WATER = -28;

test.before(async () => {
  server = await startTestServer();
  service = await createServiceClient(server);
  [reader, builder, mason, walker] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  rules = createRules(reader);
  await Promise.all([enterAtSpawn(mason), enterAtSpawn(walker)]);
});

test.after(async () => {
  await server.stop();
});

/** Stands `p` at pixel (x, y) as the server's own record (as if it had walked there). */
async function standAt(p: TestPlayer, x: number, y: number) {
  const { error } = await service.from('game_players').upsert({ player_id: p.address, player_name: nameOf(p), x, y }, { onConflict: 'player_id' });
  assert.is(error, null, JSON.stringify(error));
}

const moved = (fromX: number, fromY: number, toX: number, toY: number) =>
  new RegExp(`^blocks stay where they were placed: remove the block at ${fromX},${fromY} and place one at ${toX},${toY} instead$`);

test('the shore is where terrain.ts says it is', () => {
  assert.is(isWaterTile(LAND, ROW, WORLD_SEED), false);
  for (let x = LAND + 1; x <= LAND + 4; x++) assert.ok(isWaterTile(x, ROW, WORLD_SEED), `tile ${x},${ROW} is water`);
});

test('game_blocks: a block is never moved onto a lone water tile; in place it still changes', async () => {
  await standAt(builder, (LAND + 2) * 32, ROW * 32 + 16);
  assert.is((await builder.client.from('game_blocks').insert(blockRow(builder, LAND, ROW, 'wood'))).error, null, 'honest: on land');
  await rules.refused('placing on the lone water tile', 'game_blocks',
    () => builder.client.from('game_blocks').insert(blockRow(builder, LONE_WATER, ROW)), '23514', 400, /^blocks on water need a neighbouring block that leads to land$/);
  await rules.refused('moving the land block onto it', 'game_blocks',
    () => builder.client.from('game_blocks').update({ x: LONE_WATER }).eq('x', LAND).eq('y', ROW), '23514', 400, moved(LAND, ROW, LONE_WATER, ROW));
  await rules.refused('moving it there with a new type too', 'game_blocks',
    () => builder.client.from('game_blocks').update({ x: LONE_WATER, y: ROW, block_type: 'gold' }).eq('x', LAND).eq('y', ROW), '23514', 400, moved(LAND, ROW, LONE_WATER, ROW));
  const honest = await builder.client.from('game_blocks').update({ block_type: 'brick' }).eq('x', LAND).eq('y', ROW).select('x, y, block_type');
  assert.is(honest.error, null, JSON.stringify(honest.error));
  assert.equal(honest.data, [{ x: LAND, y: ROW, block_type: 'brick' }]);
});

test('game_blocks: a block out of view is not pulled into view, changed or removed', async () => {
  // The builder walked back to spawn: the shore (tiles x -31, y -32) is far outside its view.
  await standAt(builder, 0, 0);
  await rules.refused('pulling it into view', 'game_blocks',
    () => builder.client.from('game_blocks').update({ x: 5, y: 5 }).eq('x', LAND).eq('y', ROW), '23514', 400, moved(LAND, ROW, 5, 5));
  await rules.refused('changing it from afar', 'game_blocks',
    () => builder.client.from('game_blocks').update({ block_type: 'gold' }).eq('x', LAND).eq('y', ROW), '23514', 400,
    /^block -31,-32 is out of reach: players build only within their 800x600 view$/);
  await rules.refused('removing it from afar', 'game_blocks',
    () => builder.client.from('game_blocks').delete().eq('x', LAND).eq('y', ROW), '23514', 400,
    /^block -31,-32 is out of reach: players build only within their 800x600 view$/);
  // The edit history, which restoring reads, holds the placement and the change: no refused move.
  const edits = await builder.client.from('game_block_edits').select('x, y, before_type, after_type').in('x', [LAND, LONE_WATER, 5]).order('id');
  assert.equal(edits.data, [
    { x: LAND, y: ROW, before_type: null, after_type: 'wood' },
    { x: LAND, y: ROW, before_type: 'wood', after_type: 'brick' },
  ]);
});

test("game_blocks: an in-place upsert works; the owner and another's block cannot be taken", async () => {
  const placed = await mason.client.from('game_blocks').insert(blockRow(mason, 4, 4)).select('created_at').single();
  assert.is(placed.error, null, JSON.stringify(placed.error));
  const upsert = await mason.client.from('game_blocks').upsert({ ...blockRow(mason, 4, 4, 'gold'), created_at: '2000-01-01T00:00:00Z' }, { onConflict: 'x,y' }).select('x, y, block_type, created_at');
  assert.is(upsert.error, null, JSON.stringify(upsert.error));
  assert.equal(upsert.data, [{ x: 4, y: 4, block_type: 'gold', created_at: placed.data!.created_at }]);
  await rules.refused('handing the block to another wallet', 'game_blocks',
    () => mason.client.from('game_blocks').update({ player_id: walker.address, player_name: nameOf(walker) }).eq('x', 4).eq('y', 4), '42501', 403,
    /^new row violates row-level security policy for table "game_blocks"$/);
  const before = await rules.snapshot('game_blocks');
  const others = await walker.client.from('game_blocks').update({ block_type: 'dirt' }).eq('x', 4).eq('y', 4).select('x');
  assert.equal({ error: others.error, data: others.data }, { error: null, data: [] }, "another player's block is not one's to change");
  assert.equal(await rules.snapshot('game_blocks'), before);
});

test('game_blocks: every changed block takes a token from the blocks rate', async () => {
  const painter = await playerAtSpawn(server);
  const tiles = tilesInViewOfSpawn().slice(0, 30);
  assert.is((await painter.client.from('game_blocks').insert(tiles.map(({ x, y }) => blockRow(painter, x, y)))).error, null);
  // 30 of the burst of 40 are spent: changing all 30 needs more than the 10 left (and 8 per second).
  const flood = await painter.client.from('game_blocks').update({ block_type: 'gold' }).eq('player_id', painter.address);
  assert.is(flood.status, 429);
  assert.is(flood.error?.code, 'TS429');
  const types = await reader.client.from('game_blocks').select('block_type').eq('player_id', painter.address);
  assert.equal(new Set(types.data!.map((row) => row.block_type)), new Set(['stone']));
  assert.is(types.data!.length, 30);
});

test('game_players: the heartbeat upsert still works; an update is judged as the heartbeat is', async () => {
  const first = await rules.beat(walker, 30, 0);
  assert.is(first.error, null, JSON.stringify(first.error));
  assert.equal({ x: first.data!.x, health: first.data!.health, level: first.data!.level }, { x: 30, health: 100, level: 1 });
  const patched = await walker.client.from('game_players')
    .update({ health: 5, max_health: 100, level: 40, last_seen: '2000-01-01T00:00:00Z', updated_at: '2000-01-01T00:00:00Z' })
    .eq('player_id', walker.address).select('health, level, last_seen, updated_at').single();
  assert.is(patched.error, null, JSON.stringify(patched.error));
  assert.equal({ health: patched.data!.health, level: patched.data!.level }, { health: 100, level: 1 }, 'health and level stay the server\'s');
  assert.ok(Math.abs(Date.parse(patched.data!.last_seen) - Date.now()) < 60_000, 'last_seen is server time');
  assert.ok(Math.abs(Date.parse(patched.data!.updated_at) - Date.now()) < 60_000, 'updated_at is server time');
  await rules.refused('a teleport by PATCH', 'game_players',
    () => walker.client.from('game_players').update({ x: 3000 }).eq('player_id', walker.address), '23514', 400, /^implausible movement: 2970 px in \d+(\.\d+)? s$/);
  await rules.refused('taking another wallet\'s key', 'game_players',
    () => walker.client.from('game_players').update({ player_id: mason.address, player_name: nameOf(mason) }).eq('player_id', walker.address), '42501', 403,
    /^new row violates row-level security policy for table "game_players"$/);
  await rules.refused('writing the region', 'game_players',
    () => walker.client.from('game_players').update({ region: '9:9' }).eq('player_id', walker.address), '428C9', 400, /^column "region" can only be updated to DEFAULT$/);
  await rules.refused('a name another wallet holds', 'game_players',
    () => walker.client.from('game_players').update({ player_name: nameOf(mason).toLowerCase() }).eq('player_id', walker.address), '23505', 409,
    new RegExp(`^the name ${nameOf(mason).toLowerCase()} is taken by another player$`));
  const before = await rules.snapshot('game_players');
  const others = await walker.client.from('game_players').update({ x: 40 }).eq('player_id', mason.address).select('x');
  assert.equal({ error: others.error, data: others.data }, { error: null, data: [] }, "another player's presence is not one's to change");
  assert.equal(await rules.snapshot('game_players'), before);
  const next = await rules.beat(walker, 40, 0);
  assert.is(next.error, null, JSON.stringify(next.error));
});

test('game_player_stats: the stats upsert works; damage above the combat log is refused on update too', async () => {
  const honest = await walker.client.from('game_player_stats').upsert({ player_id: walker.address, player_name: nameOf(walker), damage_dealt: 0 }, { onConflict: 'player_id' }).select('created_at').single();
  assert.is(honest.error, null, JSON.stringify(honest.error));
  await rules.refused('raising damage_dealt by PATCH', 'game_player_stats',
    () => walker.client.from('game_player_stats').update({ damage_dealt: 25 }).eq('player_id', walker.address), '23514', 400, /^damage_dealt 25 exceeds the 0 the combat log supports$/);
  await rules.refused('raising it by upsert', 'game_player_stats',
    () => walker.client.from('game_player_stats').upsert({ player_id: walker.address, player_name: nameOf(walker), damage_dealt: 25 }, { onConflict: 'player_id' }), '23514', 400, /^damage_dealt 25 exceeds the 0 the combat log supports$/);
  await rules.refused('handing the row to another wallet', 'game_player_stats',
    () => walker.client.from('game_player_stats').update({ player_id: mason.address, player_name: nameOf(mason) }).eq('player_id', walker.address), '42501', 403,
    /^new row violates row-level security policy for table "game_player_stats"$/);
  const stamped = await walker.client.from('game_player_stats').update({ created_at: '2000-01-01T00:00:00Z' }).eq('player_id', walker.address).select('created_at').single();
  assert.is(stamped.data!.created_at, honest.data!.created_at, 'created_at stays the first write\'s');
});

test('game_chat_messages: sent once, never edited', async () => {
  const sent = await walker.client.from('game_chat_messages').insert({ player_id: walker.address, player_name: nameOf(walker), message: 'hello' }).select('id').single();
  assert.is(sent.error, null, JSON.stringify(sent.error));
  await rules.refused('editing the text after its checks', 'game_chat_messages',
    () => walker.client.from('game_chat_messages').update({ message: 'bye' }).eq('id', sent.data!.id), '42501', 403, /^permission denied for table game_chat_messages$/);
  await rules.refused('back-dating it', 'game_chat_messages',
    () => walker.client.from('game_chat_messages').update({ created_at: '2000-01-01T00:00:00Z' }).eq('id', sent.data!.id), '42501', 403, /^permission denied for table game_chat_messages$/);
});

test('game_voice_messages: a clip stays at the tile the server gave it', async () => {
  const sent = await walker.client.from('game_voice_messages').insert({ player_id: walker.address, player_name: nameOf(walker), audio_data: 'AAAA', x: 99, y: 99 }).select('id, x, y').single();
  assert.is(sent.error, null, JSON.stringify(sent.error));
  assert.equal({ x: sent.data!.x, y: sent.data!.y }, { x: 1, y: 0 }, 'the sender\'s tile, not the one sent');
  await rules.refused('moving the clip', 'game_voice_messages',
    () => walker.client.from('game_voice_messages').update({ x: 99, y: 99 }).eq('id', sent.data!.id), '42501', 403, /^permission denied for table game_voice_messages$/);
});

test('game_combat_logs: a hit is never rewritten', async () => {
  const logged = await service.from('game_combat_logs')
    .insert({ attacker_id: mason.address, attacker_name: nameOf(mason), victim_id: builder.address, victim_name: nameOf(builder), damage: 25, x: 3, y: 3 })
    .select('id').single();
  assert.is(logged.error, null, JSON.stringify(logged.error));
  await rules.refused('raising the damage', 'game_combat_logs',
    () => mason.client.from('game_combat_logs').update({ damage: 100 }).eq('id', logged.data!.id), '42501', 403, /^permission denied for table game_combat_logs$/);
  await rules.refused('moving the hit', 'game_combat_logs',
    () => mason.client.from('game_combat_logs').update({ attacker_x: 0, attacker_y: 0, created_at: '2000-01-01T00:00:00Z' }).eq('id', logged.data!.id), '42501', 403);
});

test('game_held_names and game_block_edits: only the server writes them', async () => {
  const renamed = await rules.beat(walker, 40, 0, { player_name: 'Walker Two' });
  assert.is(renamed.error, null, JSON.stringify(renamed.error));
  const held = async () => (await reader.client.from('game_held_names').select('name_key, player_id').eq('player_id', walker.address)).data;
  assert.equal(await held(), [{ name_key: 'walker two', player_id: walker.address }], 'honest: the heartbeat moved the hold');
  const grab = await walker.client.from('game_held_names').update({ player_id: walker.address }).eq('name_key', nameOf(mason).toLowerCase());
  assert.equal({ code: grab.error?.code, message: grab.error?.message, status: grab.status }, { code: '42501', message: 'permission denied for table game_held_names', status: 403 });
  assert.equal((await reader.client.from('game_held_names').select('player_id').eq('player_id', mason.address)).data, [{ player_id: mason.address }]);
  const history = async () => (await builder.client.from('game_block_edits').select('actor_id, after_type').eq('x', LAND).order('id')).data;
  const before = await history();
  const forge = await builder.client.from('game_block_edits').update({ actor_id: mason.address, after_type: null }).eq('x', LAND);
  assert.equal({ code: forge.error?.code, message: forge.error?.message, status: forge.status }, { code: '42501', message: 'permission denied for table game_block_edits', status: 403 });
  assert.equal(await history(), before);
});

test('realtime.messages: not served over REST, so no stored broadcast is rewritten', async () => {
  const rewrite = await walker.client.schema('realtime').from('messages').update({ payload: {} }).eq('topic', 'region:0:0');
  assert.is(rewrite.status, 406);
  assert.is(rewrite.error?.code, 'PGRST106');
});

test.run();
