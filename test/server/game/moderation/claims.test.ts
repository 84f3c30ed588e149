/**
 * Land claims in moderation (20250801000300_claims_in_moderation.sql): operators list, inspect
 * and remove any claim, and nobody else may; a play ban without end releases the banned wallet's
 * claims and trusts, heard live on the region's block topic, while a timed one keeps them; a
 * rollback removes the wallet's claims when asked. Real supabase-js sessions throughout.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOps } from '../../../../scripts/ops.js';
import { createTestWallet, signInPlayer, startTestServer, type TestPlayer, type TestServer, type TestWallet } from '../../../support/harness.js';
import { joinRegion, type Joined } from '../../../support/live.js';
import { blockRow, createRules, enterAtSpawn, nameOf, type Rules } from '../../../support/rules.js';
import { waitFor } from '../../../support/wait.js';

type Rect = { x1: number; y1: number; x2: number; y2: number };

let server: TestServer;
let operatorWallet: TestWallet;
let rules: Rules;
let op: TestPlayer;
let alice: TestPlayer;
let bob: TestPlayer;
let carol: TestPlayer;

// 5x5 claims in view from spawn, clear of it, all in region 0:0 (tiles -16..15).
const EAST: Rect = { x1: 4, y1: -3, x2: 8, y2: 1 };
const WEST: Rect = { x1: -9, y1: -3, x2: -5, y2: 1 };
const SOUTH_EAST: Rect = { x1: 4, y1: 4, x2: 8, y2: 8 };
const SOUTH_WEST: Rect = { x1: -9, y1: 4, x2: -5, y2: 8 };
const SOUTH: Rect = { x1: -2, y1: 4, x2: 2, y2: 8 };
const NORTH: Rect = { x1: -2, y1: -9, x2: 2, y2: -5 };
const NORTH_EAST: Rect = { x1: 4, y1: -9, x2: 8, y2: -5 };
const NORTH_WEST: Rect = { x1: -9, y1: -9, x2: -5, y2: -5 };

/** Makes a claim as player `p` and answers its id. */
async function claim(p: TestPlayer, rect: Rect): Promise<string> {
  const { data, error } = await p.client.from('game_claims').insert({ owner_id: p.address, owner_name: nameOf(p), ...rect }).select('id').single();
  assert.is(error, null, JSON.stringify(error));
  return (data as { id: string }).id;
}

/** The ids of `p`'s claims, as the operator lists them. */
async function claimsOf(p: TestPlayer): Promise<string[]> {
  const { data, error } = await op.client.rpc('ops_list_claims', { owner: p.address });
  assert.is(error, null, JSON.stringify(error));
  return (data as { id: string }[]).map((c) => c.id).sort();
}

/** The last `n` entries of the operators' log but listings (the tests list claims to check them): operator, action, target and details. */
async function lastLog(n: number) {
  const { data } = await op.client.from('game_ops_log').select('operator_id,action,target,details').neq('action', 'list_claims').order('id', { ascending: false }).limit(n);
  return (data as { operator_id: string; action: string; target: string | null; details: Record<string, unknown> }[]).reverse();
}

/** The claim-change payloads of `kind` the joined region channel heard. */
const heardOf = (joined: Joined, kind: string) =>
  joined.heard.flatMap((payload) => (Array.isArray(payload[kind]) ? (payload[kind] as Record<string, unknown>[]) : []));

/** Signs `p` in again once a play ban ended its sessions, and enters at spawn. */
async function back(p: TestPlayer): Promise<TestPlayer> {
  await p.client.removeAllChannels();
  p.client.realtime.disconnect();
  const again = await signInPlayer(server, p.wallet);
  await enterAtSpawn(again);
  return again;
}

test.before(async () => {
  operatorWallet = createTestWallet();
  server = await startTestServer(undefined, { OPERATOR_WALLETS: operatorWallet.address });
  [op, alice, bob, carol] = await Promise.all([signInPlayer(server, operatorWallet), signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  rules = createRules(op);
});

test.before.each(async () => {
  await Promise.all([op, alice, bob, carol].map((p) => enterAtSpawn(p)));
});

test.after(async () => {
  for (const p of [op, alice, bob, carol]) {
    await p.client.removeAllChannels();
    p.client.realtime.disconnect();
  }
  await server.stop();
});

test('a player may not list, inspect or remove claims, nor roll back claims: 403 42501, nothing changes', async () => {
  const id = await claim(alice, EAST);
  const logged = (await op.client.from('game_ops_log').select('id')).data!.length;
  const list = await bob.client.rpc('ops_list_claims', {});
  assert.is(list.status, 403);
  assert.is(list.error?.code, '42501');
  assert.is(list.error?.message, 'only operators may list claims');
  const inspect = await bob.client.rpc('ops_inspect_claim', { claim_id: id });
  assert.is(inspect.status, 403);
  assert.is(inspect.error?.code, '42501');
  assert.is(inspect.error?.message, 'only operators may inspect claims');
  await rules.refused('remove another\'s claim', 'game_claims', () => bob.client.rpc('ops_remove_claim', { claim_id: id, reason: 'mine now' }), '42501', 403, /^only operators may remove claims$/);
  await rules.refused('remove its own claim as an operator would', 'game_claims', () => alice.client.rpc('ops_remove_claim', { claim_id: id, reason: 'x' }), '42501', 403, /^only operators may remove claims$/);
  await rules.refused(
    'roll back another\'s claims',
    'game_claims',
    () => bob.client.rpc('rollback_edits', { wallet: alice.address, since: new Date(0).toISOString(), x: 0, y: 0, radius: 10, claims: 'all', dry_run: false }),
    '42501',
    403,
    /^only operators may roll back edits$/,
  );
  assert.equal(await claimsOf(alice), [id]);
  assert.is((await op.client.from('game_ops_log').select('id')).data!.length, logged + 1, 'only the operator\'s own listing was logged');
  assert.is((await op.client.rpc('ops_remove_claim', { claim_id: id, reason: 'test over' })).error, null);
});

test('an operator lists (by owner, by area, a page at a time), inspects and removes a claim; the region hears it go', async () => {
  const east = await claim(alice, EAST);
  const west = await claim(alice, WEST);
  const south = await claim(carol, SOUTH);
  assert.is((await alice.client.from('game_claim_members').insert({ claim_id: east, player_id: carol.address })).error, null);
  assert.is((await alice.client.from('game_blocks').insert(blockRow(alice, 5, -1, 'brick'))).error, null);

  const first = await op.client.rpc('ops_list_claims', { owner: alice.address, page_size: 1 });
  assert.is(first.error, null, JSON.stringify(first.error));
  const [newest] = first.data as { id: string; created_at: string }[];
  assert.equal(first.data, [{ id: west, owner_id: alice.address, owner_name: nameOf(alice), ...WEST, created_at: newest!.created_at, members: 0, holds: true }]);
  const second = await op.client.rpc('ops_list_claims', { owner: alice.address, page_size: 1, before_created: newest!.created_at, before_id: newest!.id });
  assert.equal((second.data as { id: string; members: number }[]).map(({ id, members }) => ({ id, members })), [{ id: east, members: 1 }]);
  const third = await op.client.rpc('ops_list_claims', { owner: alice.address, page_size: 1, before_created: (second.data as { created_at: string }[])[0]!.created_at, before_id: east });
  assert.equal(third.data, []);
  const near = await op.client.rpc('ops_list_claims', { x: 0, y: 6, radius: 2 });
  assert.equal((near.data as { id: string }[]).map((c) => c.id), [south]);
  const tooBig = await op.client.rpc('ops_list_claims', { page_size: 201 });
  assert.is(tooBig.error?.code, '23514');
  assert.is(tooBig.error?.message, 'a page lists 1 to 200 claims');
  const halfArea = await op.client.rpc('ops_list_claims', { x: 0, y: 6 });
  assert.is(halfArea.error?.message, 'an area names x, y and radius');

  const inspected = await op.client.rpc('ops_inspect_claim', { claim_id: east });
  assert.is(inspected.error, null, JSON.stringify(inspected.error));
  const details = inspected.data as Record<string, unknown> & { members: { player_id: string; player_name: string | null }[] };
  assert.equal({ ...details, created_at: null, owner_last_present: null, members: details.members.map(({ player_id, player_name }) => ({ player_id, player_name })) }, {
    id: east, owner_id: alice.address, owner_name: nameOf(alice), ...EAST, created_at: null, holds: true, owner_last_present: null, owner_ban: null,
    blocks: 1, owner_blocks: 1, members: [{ player_id: carol.address, player_name: nameOf(carol) }],
  });
  assert.ok(typeof details.owner_last_present === 'string');

  // Bob, holding spawn's region, is refused in the claim until the operator removes it.
  const region = await joinRegion(bob.client, 'blocks:0:0');
  await rules.refused('build in the claim', 'game_blocks', () => bob.client.from('game_blocks').insert(blockRow(bob, 6, -2)), '42501', 403, new RegExp(`^This land is claimed by ${nameOf(alice)}\\.$`));
  const noReason = await op.client.rpc('ops_remove_claim', { claim_id: east, reason: ' ' });
  assert.is(noReason.error?.code, '23514');
  assert.is(noReason.error?.message, 'a removal names a reason of 1 to 200 characters');
  const removed = await op.client.rpc('ops_remove_claim', { claim_id: east, reason: 'blocks the road' });
  assert.is(removed.error, null, JSON.stringify(removed.error));
  assert.equal(removed.data, { id: east, owner_id: alice.address, owner_name: nameOf(alice), ...EAST, created_at: (second.data as { created_at: string }[])[0]!.created_at, members: 1 });
  await waitFor(() => heardOf(region, 'gone').some((c) => c.id === east), { message: 'Bob hears the claim go' });
  assert.equal(heardOf(region, 'gone'), [{ id: east, owner_id: alice.address, owner_name: nameOf(alice), ...EAST }]);
  assert.is((await bob.client.from('game_blocks').insert(blockRow(bob, 6, -2))).error, null);
  assert.equal((await op.client.from('game_claim_members').select('player_id').eq('claim_id', east)).data, []);
  const again = await op.client.rpc('ops_remove_claim', { claim_id: east, reason: 'blocks the road' });
  assert.is(again.error?.code, 'P0002');
  assert.is(again.error?.message, `no claim ${east}`);

  assert.equal((await lastLog(1)).map(({ operator_id, action, target, details }) => ({ operator_id, action, target, reason: details.reason })), [
    { operator_id: op.address, action: 'remove_claim', target: alice.address, reason: 'blocks the road' },
  ]);
  const actions = (await op.client.from('game_ops_log').select('action').in('action', ['list_claims', 'inspect_claim', 'remove_claim'])).data as { action: string }[];
  assert.equal(actions.map((a) => a.action).filter((a) => a !== 'list_claims').sort(), ['inspect_claim', 'remove_claim', 'remove_claim']);
  await bob.client.removeChannel(region.channel);
  for (const id of [west, south]) assert.is((await op.client.rpc('ops_remove_claim', { claim_id: id, reason: 'test over' })).error, null);
});

test('a rollback removes the wallet\'s claims made since its time, or all of them, when asked; logged', async () => {
  const older = await claim(alice, SOUTH_WEST);
  const since = new Date().toISOString();
  const newer = await claim(alice, SOUTH_EAST);
  const args = { wallet: alice.address, since, x: 0, y: 0, radius: 5 };
  // Without `claims`, the rollback is the one it was.
  assert.equal((await op.client.rpc('rollback_edits', { ...args, dry_run: true })).data, { id: null, dry_run: true, removed: 0, restored: 0, skipped: 0 });
  assert.equal((await op.client.rpc('rollback_edits', { ...args, claims: 'window', dry_run: true })).data, { id: null, dry_run: true, removed: 0, restored: 0, skipped: 0, claims: 1 });
  assert.equal(await claimsOf(alice), [older, newer].sort(), 'the preview removed nothing');
  const bad = await op.client.rpc('rollback_edits', { ...args, claims: 'some', dry_run: true });
  assert.is(bad.error?.message, 'claims is none, window or all');

  const done = await op.client.rpc('rollback_edits', { ...args, claims: 'window' });
  assert.is(done.error, null, JSON.stringify(done.error));
  const { id } = done.data as { id: number };
  assert.equal(done.data, { id, dry_run: false, removed: 0, restored: 0, skipped: 0, claims: 1 });
  const [rolled, removed] = await lastLog(2);
  assert.equal([rolled!.action, removed!.action, removed!.target, removed!.details.rollback, removed!.details.claims_scope], ['rollback', 'rollback_claims', alice.address, id, 'window']);
  assert.equal((removed!.details.claims as { id: string }[]).map((c) => c.id), [newer]);
  assert.equal(await claimsOf(alice), [older]);

  const all = await op.client.rpc('rollback_edits', { ...args, since: new Date().toISOString(), claims: 'all' });
  assert.is((all.data as { claims: number }).claims, 1);
  assert.equal(await claimsOf(alice), []);
});

test('a timed play ban keeps the wallet\'s claims and trusts: others are still refused there', async () => {
  const held = await claim(alice, NORTH);
  const carols = await claim(carol, NORTH_WEST);
  assert.is((await carol.client.from('game_claim_members').insert({ claim_id: carols, player_id: alice.address })).error, null);
  const ban = await op.client.from('game_bans').insert({ player_id: alice.address, scope: 'play', reason: 'cooling off', until: new Date(Date.now() + 3600_000).toISOString() });
  assert.is(ban.error, null, JSON.stringify(ban.error));
  assert.is((await lastLog(1))[0]!.action, 'ban', 'nothing released');
  assert.equal(await claimsOf(alice), [held]);
  assert.equal((await op.client.from('game_claim_members').select('player_id').eq('claim_id', carols)).data, [{ player_id: alice.address }]);
  await rules.refused('build in the banned wallet\'s claim', 'game_blocks', () => bob.client.from('game_blocks').insert(blockRow(bob, 0, -7)), '42501', 403, new RegExp(`^This land is claimed by ${nameOf(alice)}\\.$`));
  assert.is((await op.client.from('game_bans').delete().eq('player_id', alice.address)).error, null);
  alice = await back(alice);
  assert.equal(await claimsOf(alice), [held], 'the claim is the wallet\'s on its return');
});

test('a play ban without end releases the wallet\'s claims and trusts: the region hears them go, others build there', async () => {
  const [held] = await claimsOf(alice);
  const carols = (await claimsOf(carol))[0]!;
  const region = await joinRegion(bob.client, 'blocks:0:0');
  const ban = await op.client.from('game_bans').insert({ player_id: alice.address, scope: 'play', reason: 'griefing for good' });
  assert.is(ban.error, null, JSON.stringify(ban.error));
  await waitFor(() => heardOf(region, 'gone').length && heardOf(region, 'untrusted').length, { message: 'Bob hears the claim and the trust go' });
  assert.equal(heardOf(region, 'gone'), [{ id: held, owner_id: alice.address, owner_name: nameOf(alice), ...NORTH }]);
  assert.equal(heardOf(region, 'untrusted'), [{ claim_id: carols, player_id: alice.address }]);
  assert.equal(await claimsOf(alice), []);
  assert.equal(await claimsOf(carol), [carols], 'claims the wallet was trusted on stay');
  assert.equal((await op.client.from('game_claim_members').select('player_id').eq('claim_id', carols)).data, []);
  assert.is((await bob.client.from('game_blocks').insert(blockRow(bob, 0, -7))).error, null, 'no more "This land is claimed by"');

  const [banned, released] = await lastLog(2);
  assert.equal([banned!.action, released!.operator_id, released!.action, released!.target, released!.details.trusts], ['ban', op.address, 'release_claims', alice.address, 1]);
  assert.equal((released!.details.claims as { id: string; members: number }[]).map(({ id, members }) => ({ id, members })), [{ id: held, members: 0 }]);
  await bob.client.removeChannel(region.channel);
  assert.is((await op.client.from('game_bans').delete().eq('player_id', alice.address)).error, null);
  alice = await back(alice);
});

test('npm run ops: claims, claim and remove-claim with the service-role key; a timed ban made endless releases', async () => {
  const env = { DATA_DIR: server.dataDir, TESSERA_URL: server.url };
  const id = await claim(alice, NORTH_EAST);
  const line = `${id} ${nameOf(alice)} (${alice.address}) 4,-9..8,-5 (5x5) 0 trusted holds since `;
  assert.match(await runOps(['claims', '--owner', alice.address], env), line);
  const page = await runOps(['claims', '--limit', '1'], env);
  assert.match(page, line);
  assert.match(page, /\nnext page: --after \S+,\S+$/);
  assert.match(await runOps(['claim', id], env), `${id} ${nameOf(alice)} (${alice.address}) 4,-9..8,-5 (5x5) since `);
  assert.is(await runOps(['remove-claim', id, '--reason', 'abandoned base'], env), `removed claim ${id} of ${nameOf(alice)} (${alice.address}) at 4,-9..8,-5 (5x5), 0 trusted: abandoned base`);
  assert.is(await runOps(['claims', '--owner', alice.address], env), 'no claims');
  const listed = await op.client.from('game_ops_log').select('operator_id,action,target').order('id', { ascending: false }).limit(1);
  assert.equal(listed.data, [{ operator_id: 'service_role', action: 'list_claims', target: alice.address }]);

  // A timed ban keeps the claim; changing it to no end releases it then.
  const kept = await claim(alice, NORTH_EAST);
  await runOps(['ban', alice.address, '--reason', 'repeat griefing', '--hours', '2'], env);
  assert.equal(await claimsOf(alice), [kept]);
  await runOps(['ban', alice.address, '--reason', 'repeat griefing'], env);
  assert.equal(await claimsOf(alice), []);
  await runOps(['unban', alice.address], env);
  alice = await back(alice);
});

test.run();
