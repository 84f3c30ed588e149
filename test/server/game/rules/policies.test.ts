/**
 * The game tables' row rules against a hostile client: anon writes nothing, a player writes only
 * their own rows, spawn is protected, one block per tile, chat and names within their bounds.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestClient, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { twoPlayersAtSpawn } from '../../../support/rules.js';

let server: TestServer;
let alice: TestPlayer;
let bob: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  // Building needs a fresh presence row and a tile in view: blocks below stay within x -12..12, y -9..9.
  [alice, bob] = await twoPlayersAtSpawn(server, ['Alice', 'Bob']);
});

test.after(async () => {
  await server.stop();
});

const block = (player: TestPlayer, x: number, y: number, blockType = 'stone') => ({
  x,
  y,
  block_type: blockType,
  player_id: player.address,
  player_name: 'Player',
});

test('anon cannot write (401 42501) and reads nothing', async () => {
  const anon = createTestClient(server);
  const insert = await anon.from('game_blocks').insert(block(alice, 10, 8));
  assert.is(insert.status, 401);
  assert.is(insert.error!.code, '42501');
  await alice.client.from('game_blocks').insert(block(alice, 11, 8));
  const read = await anon.from('game_blocks').select('*');
  assert.equal(read.data, []);
});

test("writing another player's rows is refused with 403 42501", async () => {
  const chat = await alice.client.from('game_chat_messages').insert({ player_id: bob.address, player_name: 'Bob', message: 'hi' });
  assert.is(chat.status, 403);
  assert.is(chat.error!.code, '42501');
  const place = await alice.client.from('game_blocks').insert(block(bob, 12, 8));
  assert.is(place.error!.code, '42501');
  const attack = await alice.client.from('game_combat_logs').insert({
    attacker_id: bob.address, attacker_name: 'Bob', victim_id: alice.address, victim_name: 'Alice', damage: 25, x: 9, y: 9,
  });
  assert.is(attack.error!.code, '42501');
  const stats = await alice.client.from('game_player_stats').upsert({ player_id: bob.address, player_name: 'Bob', damage_dealt: 1 });
  assert.is(stats.error!.code, '42501');
});

test("another player's presence can be neither overwritten nor deleted", async () => {
  const row = { player_id: bob.address, player_name: 'Bob', x: 1, y: 1 };
  assert.is((await bob.client.from('game_players').upsert(row, { onConflict: 'player_id' })).error, null);
  const hijack = await alice.client.from('game_players').upsert({ ...row, x: 500 }, { onConflict: 'player_id' });
  assert.is(hijack.error!.code, '42501');
  const removed = await alice.client.from('game_players').delete().eq('player_id', bob.address).select();
  assert.equal(removed.data, []);
  const still = await alice.client.from('game_players').select('x').eq('player_id', bob.address).single();
  assert.equal(still.data, { x: 1 });
});

test("any signed-in player may remove another's block outside spawn", async () => {
  await bob.client.from('game_blocks').insert(block(bob, -12, 4));
  const removed = await alice.client.from('game_blocks').delete().eq('x', -12).eq('y', 4).select('x, y');
  assert.equal(removed.data, [{ x: -12, y: 4 }]);
});

test('spawn protection and block types are constraints (400 23514)', async () => {
  const spawn = await alice.client.from('game_blocks').insert(block(alice, 2, -2));
  assert.is(spawn.status, 400);
  assert.is(spawn.error!.code, '23514');
  const edge = await alice.client.from('game_blocks').insert(block(alice, 3, -2));
  assert.is(edge.error, null);
  const unknown = await alice.client.from('game_blocks').insert(block(alice, 9, -7, 'lava'));
  assert.is(unknown.error!.code, '23514');
});

test('one block per tile (409 23505)', async () => {
  await alice.client.from('game_blocks').insert(block(alice, 12, 1));
  const again = await bob.client.from('game_blocks').insert(block(bob, 12, 1));
  assert.is(again.status, 409);
  assert.is(again.error!.code, '23505');
});

test('chat messages and names must be trimmed, non-empty and short enough', async () => {
  const chat = (message: string, name = 'Alice') =>
    alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: name, message });
  assert.is((await chat('x'.repeat(200))).error, null);
  for (const bad of ['', '   ', ' padded', 'x'.repeat(201)]) {
    assert.is((await chat(bad)).error?.code, '23514', JSON.stringify(bad));
  }
  assert.is((await chat('ok', 'N'.repeat(21))).error?.code, '23514');
  assert.is((await chat('ok', ' ')).error?.code, '23514');
  const presence = await alice.client.from('game_players').upsert({ player_id: alice.address, player_name: 'N'.repeat(20) });
  assert.is(presence.error, null);
});

test.run();
