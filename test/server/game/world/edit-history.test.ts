/**
 * The edit history and restoring: every block edit is recorded by the server (who, where,
 * before, after, when); a player reads the rows about themselves only; putting a removed
 * block back is an ordinary placement, refused for another player's block, for an occupied
 * tile and beyond the building rate limit.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readRemovals, restorableInView } from '../../../../net/restorable.js';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { blockRow, enterAtSpawn } from '../../../support/rules.js';

let server: TestServer;
let alice: TestPlayer;
let bob: TestPlayer;
let carol: TestPlayer;

/** Every player stands at spawn with a fresh presence row: building needs one, and a view around it. */
async function present(): Promise<void> {
  await Promise.all([alice, bob, carol].map((p) => enterAtSpawn(p)));
}

test.before(async () => {
  server = await startTestServer();
  [alice, bob, carol] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
});

test.before.each(present);

test.after(async () => {
  await server.stop();
});

test('each insert, update and delete is recorded with its actor, before and after', async () => {
  assert.is((await alice.client.from('game_blocks').insert(blockRow(alice, -10, -8, 'wood'))).error, null);
  assert.is((await alice.client.from('game_blocks').update({ block_type: 'gold' }).eq('x', -10).eq('y', -8)).error, null);
  assert.is((await bob.client.from('game_blocks').delete().eq('x', -10).eq('y', -8)).error, null);
  const { data, error } = await alice.client
    .from('game_block_edits')
    .select('x,y,actor_id,before_type,before_owner,after_type,after_owner')
    .eq('x', -10)
    .order('id');
  assert.is(error, null);
  assert.equal(data, [
    { x: -10, y: -8, actor_id: alice.address, before_type: null, before_owner: null, after_type: 'wood', after_owner: alice.address },
    { x: -10, y: -8, actor_id: alice.address, before_type: 'wood', before_owner: alice.address, after_type: 'gold', after_owner: alice.address },
    { x: -10, y: -8, actor_id: bob.address, before_type: 'gold', before_owner: alice.address, after_type: null, after_owner: null },
  ]);
});

test('a player reads only the history about themselves; nobody writes it', async () => {
  const seenByCarol = await carol.client.from('game_block_edits').select('id').eq('x', -10);
  assert.equal(seenByCarol.data, []);
  const write = await alice.client.from('game_block_edits').insert({ x: 1, y: 40, before_type: 'stone', before_owner: alice.address });
  assert.is(write.error?.code, '42501');
  const erase = await alice.client.from('game_block_edits').delete().eq('x', -10).select('id');
  assert.is(erase.error?.code, '42501');
  const anon = await fetch(`${server.url}/rest/v1/game_block_edits?select=id`, { headers: { apikey: server.anonKey } });
  assert.is(anon.status, 401);
});

test('restore: Alice sees what Bob removed in view and puts back only the empty tiles', async () => {
  for (const x of [5, 6, 7]) assert.is((await alice.client.from('game_blocks').insert(blockRow(alice, x, 3, 'brick'))).error, null);
  assert.is((await alice.client.from('game_blocks').insert(blockRow(alice, -11, 3, 'brick'))).error, null);
  for (const x of [5, 6, 7, -11]) assert.is((await bob.client.from('game_blocks').delete().eq('x', x).eq('y', 3)).error, null);
  // The block at x = -11 lies outside the view around tile (6, 3) that Alice restores in.
  // Bob builds his own block into one of the holes; Alice removes one of her own blocks herself.
  assert.is((await bob.client.from('game_blocks').insert(blockRow(bob, 7, 3, 'dirt'))).error, null);
  assert.is((await alice.client.from('game_blocks').insert(blockRow(alice, 8, 3))).error, null);
  assert.is((await alice.client.from('game_blocks').delete().eq('x', 8).eq('y', 3)).error, null);
  const occupied = new Set(['7,3']);
  const removals = await readRemovals(alice.client, alice.address, Date.now());
  const found = restorableInView(removals, { x: 6, y: 3 }, { hasBlock: (x, y) => occupied.has(`${x},${y}`) });
  assert.equal(found.sort((a, b) => a.x - b.x), [
    { x: 5, y: 3, blockType: 'brick' },
    { x: 6, y: 3, blockType: 'brick' },
  ]);
  for (const { x, y, blockType } of found) assert.is((await alice.client.from('game_blocks').insert(blockRow(alice, x, y, blockType))).error, null);
  const { data } = await alice.client.from('game_blocks').select('x,player_id').eq('y', 3).order('x');
  assert.equal(data, [
    { x: 5, player_id: alice.address },
    { x: 6, player_id: alice.address },
    { x: 7, player_id: bob.address },
  ]);
});

test('refusals: a restore as another player, into an occupied tile, and beyond the rate limit', async () => {
  const asAlice = await bob.client.from('game_blocks').insert(blockRow(alice, 9, 3, 'brick'));
  assert.is(asAlice.error?.code, '42501');
  const intoBob = await alice.client.from('game_blocks').insert(blockRow(alice, 7, 3, 'brick'));
  assert.is(intoBob.error?.code, '23505');
  const overBob = await alice.client.from('game_blocks').upsert(blockRow(alice, 7, 3, 'brick'));
  assert.is(overBob.error?.code, '42501');
  const { data } = await alice.client.from('game_blocks').select('block_type,player_id').eq('x', 7).eq('y', 3);
  assert.equal(data, [{ block_type: 'dirt', player_id: bob.address }]);
  // Carol's bucket holds 40 blocks; a restore of 45 in one request is refused as a whole.
  const many = Array.from({ length: 45 }, (_, i) => blockRow(carol, -7 + (i % 15), 6 + Math.floor(i / 15), 'stone'));
  const flood = await carol.client.from('game_blocks').insert(many);
  assert.is(flood.status, 429);
  assert.is(flood.error?.code, 'TS429');
  const placed = await carol.client.from('game_blocks').select('x').gte('y', 6).lte('y', 8);
  assert.equal(placed.data, []);
});

test.run();
