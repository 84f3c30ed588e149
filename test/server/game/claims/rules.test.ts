/**
 * Land claims: each rule the database enforces, its honest path beside its refusal. Claims are
 * made, trusted, built in and abandoned by real supabase-js sessions; the operator connection
 * only ages rows (blocks, presence, play time) to stand in for days and hours.
 */
import type pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isWaterTile, WORLD_SEED } from '../../../../components/terrain.js';
import { connectAsOperator } from '../../../support/server.js';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { createRules, enterAtSpawn, nameOf, playerAtSpawn, type Rules } from '../../../support/rules.js';
import { waitFor } from '../../../support/wait.js';
import { subscribeChannel } from '../../../support/live.js';

let server: TestServer;
let operator: pg.Client;
let rules: Rules;
let alice: TestPlayer;
let bob: TestPlayer;
let carol: TestPlayer;

/** Claim A, alice's, east of spawn and in view from it: 7x7 tiles. */
const A = { x1: 4, y1: -3, x2: 10, y2: 3 };

const claim = (p: TestPlayer, rect: { x1: number; y1: number; x2: number; y2: number }, extra: Record<string, unknown> = {}) =>
  p.client.from('game_claims').insert({ owner_id: p.address, owner_name: nameOf(p), ...rect, ...extra });
const place = (p: TestPlayer, x: number, y: number) =>
  p.client.from('game_blocks').insert({ x, y, block_type: 'brick', player_id: p.address, player_name: nameOf(p) });
const remove = (p: TestPlayer, x: number, y: number) => p.client.from('game_blocks').delete().eq('x', x).eq('y', y).select('x, y');
const budget = async (p: TestPlayer) => {
  const { data, error } = await p.client.rpc('claim_budget');
  assert.is(error, null, JSON.stringify(error));
  return data as { total: number; used: number; available: number };
};
/** As the operator, with triggers off: stands in for time passing. */
async function age(sql: string, params: unknown[]): Promise<void> {
  await operator.query('set session_replication_role = replica');
  try {
    await operator.query(sql, params);
  } finally {
    await operator.query('set session_replication_role = origin');
  }
}
/** Runs a delete that row-level security must turn into a no-op, and checks that `table` did not change. */
async function deletesNothing(label: string, table: string, write: () => PromiseLike<{ data: unknown; error: unknown }>) {
  const before = await rules.snapshot(table);
  const { data, error } = await write();
  assert.is(error, null, label);
  assert.equal(data, [], label);
  assert.equal(await rules.snapshot(table), before, `${label}: no row changed`);
}
const idOf = async (p: TestPlayer, rect: typeof A) =>
  (await rules.snapshot('game_claims') as Array<Record<string, unknown>>).find((c) => c.owner_id === p.address && c.x1 === rect.x1 && c.y1 === rect.y1)!.id as string;

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  rules = createRules(await signInPlayer(server));
  [alice, bob, carol] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
});

test.before.each(async () => {
  await Promise.all([alice, bob, carol].map((p) => enterAtSpawn(p)));
});

test.after(async () => {
  await operator.end();
  await server.stop();
});

test('a claim in view is stored with the server name and time; each broken rule is refused with its sentence', async () => {
  const { refused } = rules;
  const made = await claim(alice, A, { owner_name: 'Forged', created_at: '2000-01-01T00:00:00Z' }).select('owner_id, owner_name, x1, y1, x2, y2, created_at').single();
  assert.is(made.error, null, JSON.stringify(made.error));
  const { created_at: createdAt, ...row } = made.data!;
  assert.equal(row, { owner_id: alice.address, owner_name: nameOf(alice), ...A });
  assert.ok(Math.abs(Date.parse(createdAt as string) - Date.now()) < 60_000);

  const sentence = (label: string, write: () => PromiseLike<{ error: { code?: string; message?: string } | null; status: number }>, message: string) =>
    refused(label, 'game_claims', async () => {
      const result = await write();
      assert.is(result.error?.message, message, label);
      return result;
    }, '23514', 400);
  await sentence('4x5', () => claim(bob, { x1: -10, y1: 4, x2: -7, y2: 8 }), 'A claim is at least 5x5 tiles; this one is 4x5.');
  await sentence('101 wide', () => claim(bob, { x1: -110, y1: 4, x2: -10, y2: 8 }), 'A claim is at most 100 tiles wide and 100 tall; this one is 101x5.');
  await sentence('outside the world', () => claim(bob, { x1: 4996, y1: 4, x2: 5000, y2: 8 }), 'That land is outside the world.');
  await sentence('touching spawn', () => claim(bob, { x1: -7, y1: -2, x2: -3, y2: 2 }), 'Nobody claims spawn: keep the claim one tile clear of the spawn area.');
  await sentence('overlapping A by one tile', () => claim(bob, { x1: 10, y1: 3, x2: 14, y2: 7 }), `This land is already claimed by ${nameOf(alice)}.`);
  const ghost = await signInPlayer(server);
  await sentence('without presence', () => claim(ghost, { x1: -10, y1: 4, x2: -6, y2: 8 }), 'Only a player in the world claims land.');
  await sentence('out of view', () => claim(bob, { x1: 100, y1: 4, x2: 104, y2: 8 }), 'Stand where you can see the land you claim.');
  await sentence('475 tiles of 400', () => claim(bob, { x1: -100, y1: -9, x2: -6, y2: -5 }), 'This claim needs 475 tiles; you have 400 left.');
  await refused('a claim for another wallet', 'game_claims', () => claim(bob, { x1: -10, y1: 4, x2: -6, y2: 8 }, { owner_id: alice.address }), '42501', 403);
  const touching = await claim(bob, { x1: 11, y1: -3, x2: 15, y2: 1 });
  assert.is(touching.error, null, 'honest: a claim beside another, sharing no tile');
  assert.is((await bob.client.from('game_claims').delete().eq('owner_id', bob.address)).error, null);
});

test("a claim may not cover another wallet's blocks of the last 24 hours; older ones and one's own are fine", async () => {
  const rect = { x1: -10, y1: 4, x2: -6, y2: 8 };
  assert.is((await place(bob, -8, 6)).error, null);
  assert.is((await place(alice, -9, 5)).error, null);
  await rules.refused('covering a fresh block', 'game_claims', () => claim(alice, rect), '23514', 400,
    new RegExp(`^${nameOf(bob)} built here in the last 24 hours: leave their blocks out of the claim\\.$`));
  await age('update public.game_blocks set created_at = now() - interval \'25 hours\' where x = -8 and y = 6', []);
  assert.is((await claim(alice, rect)).error, null, 'honest: the block is a day old');
  assert.equal(await budget(alice), { total: 400, used: 49 + 25, available: 326 });
  assert.is((await alice.client.from('game_claims').delete().eq('x1', -10).eq('y1', 4)).error, null);
  assert.equal(await budget(alice), { total: 400, used: 49, available: 351 }, 'abandoning returns the tiles');
});

test('inside a claim only the owner and its members build; trust is the owner\'s to give and take', async () => {
  const { refused } = rules;
  const claimId = await idOf(alice, A);
  const refusal = `This land is claimed by ${nameOf(alice)}.`;
  assert.is((await place(alice, 5, 0)).error, null, 'honest: the owner builds');
  await refused('a stranger places', 'game_blocks', () => place(bob, 6, 0), '42501', 403, new RegExp(`^${refusal.replace('.', '\\.')}$`));
  await refused('a stranger removes', 'game_blocks', () => remove(bob, 5, 0), '42501', 403, /^This land is claimed by/);
  assert.is((await place(bob, 11, 0)).error, null, 'honest: outside the claim anyone builds');

  const trusted = await alice.client.from('game_claim_members').insert({ claim_id: claimId, player_id: bob.address, added_at: '2000-01-01T00:00:00Z' }).select('player_id, added_at').single();
  assert.is(trusted.error, null, JSON.stringify(trusted.error));
  assert.ok(Math.abs(Date.parse(trusted.data!.added_at as string) - Date.now()) < 60_000);
  assert.is((await place(bob, 6, 0)).error, null, 'honest: a member places');
  assert.equal((await remove(bob, 5, 0)).data, [{ x: 5, y: 0 }], 'honest: a member removes');
  await refused('a member trusts another', 'game_claim_members', () => bob.client.from('game_claim_members').insert({ claim_id: claimId, player_id: carol.address }), '42501', 403);
  await refused('a stranger trusts itself', 'game_claim_members', () => carol.client.from('game_claim_members').insert({ claim_id: claimId, player_id: carol.address }), '42501', 403);
  await refused('the owner trusts itself', 'game_claim_members', () => alice.client.from('game_claim_members').insert({ claim_id: claimId, player_id: alice.address }), '23514', 400, /^You already own this claim\.$/);
  await deletesNothing('a stranger untrusts a member', 'game_claim_members', () => carol.client.from('game_claim_members').delete().eq('claim_id', claimId).select());
  await deletesNothing('a stranger abandons the claim', 'game_claims', () => carol.client.from('game_claims').delete().eq('id', claimId).select());
  await refused('a member moves the claim', 'game_claims', () => bob.client.from('game_claims').update({ x1: 0 }).eq('id', claimId), '42501', 403);
  await refused('the owner moves the claim', 'game_claims', () => alice.client.from('game_claims').update({ x1: 0 }).eq('id', claimId), '42501', 403);

  assert.is((await alice.client.from('game_claim_members').delete().eq('claim_id', claimId).eq('player_id', bob.address)).error, null);
  await refused('an untrusted member places', 'game_blocks', () => place(bob, 7, 0), '42501', 403, /^This land is claimed by/);
  await refused('an untrusted member removes', 'game_blocks', () => remove(bob, 6, 0), '42501', 403, /^This land is claimed by/);
  await refused('an untrusted member changes its own block there', 'game_blocks', () => bob.client.from('game_blocks').update({ block_type: 'gold' }).eq('x', 6).eq('y', 0), '42501', 403, /^This land is claimed by/);

  assert.is((await alice.client.from('game_claims').delete().eq('id', claimId)).error, null, 'honest: the owner abandons');
  assert.is((await place(carol, 7, 0)).error, null, 'honest: abandoned land is anyone\'s again');
  assert.equal((await remove(carol, 6, 0)).data, [{ x: 6, y: 0 }]);
});

test('the budget: 400 tiles, 100 more per hour of moving presence, at most 10,000', async () => {
  const dana = await signInPlayer(server);
  assert.equal(await budget(dana), { total: 400, used: 0, available: 400 });
  const played = async () => (await operator.query('select played_seconds from game_private.earned where player_id = $1', [dana.address])).rows[0]?.played_seconds as number;
  await rules.beat(dana, 0, 0);
  await age('update public.game_players set last_seen = now() - interval \'8 seconds\' where player_id = $1', [dana.address]);
  await rules.beat(dana, 30, 0);
  assert.ok(Math.abs((await played()) - 8) < 0.5, `8 s of moving presence: ${await played()}`);
  await age('update public.game_players set last_seen = now() - interval \'8 seconds\' where player_id = $1', [dana.address]);
  await rules.beat(dana, 30, 0);
  assert.ok(Math.abs((await played()) - 8) < 0.5, 'standing still earns nothing');
  await age('update public.game_players set last_seen = now() - interval \'1 hour\' where player_id = $1', [dana.address]);
  await rules.beat(dana, 60, 0);
  assert.ok(Math.abs((await played()) - 18) < 0.5, 'a long gap counts 10 s at most');
  await age('update game_private.earned set played_seconds = 9000 where player_id = $1', [dana.address]);
  assert.equal(await budget(dana), { total: 650, used: 0, available: 650 }, '2.5 hours of play');
  assert.is((await claim(dana, { x1: -100, y1: -9, x2: -6, y2: -5 })).error, null, 'honest: 475 tiles fit 650');
  assert.equal(await budget(dana), { total: 650, used: 475, available: 175 });
  await age('update game_private.earned set played_seconds = 1e9 where player_id = $1', [dana.address]);
  assert.equal(await budget(dana), { total: 10000, used: 475, available: 9525 });
  assert.is((await dana.client.from('game_claims').delete().eq('owner_id', dana.address)).error, null);
  const anon = await fetch(`${server.url}/rest/v1/rpc/claim_budget`, { method: 'POST', headers: { apikey: server.anonKey, 'content-type': 'application/json' }, body: '{}' });
  assert.is(anon.status, 401, 'anon has no budget');
});

test('a claim lapses after 60 days without its owner: it protects nothing, yields, and goes when the owner returns', async () => {
  const erin = await playerAtSpawn(server);
  const east = { x1: 4, y1: 4, x2: 10, y2: 8 };
  const west = { x1: -10, y1: -9, x2: -6, y2: -5 };
  assert.is((await claim(erin, east)).error, null);
  assert.is((await claim(erin, west)).error, null);
  await rules.refused('a stranger builds in a held claim', 'game_blocks', () => place(carol, 5, 5), '42501', 403);
  await age('update game_private.last_positions set at = now() - interval \'61 days\' where player_id = $1', [erin.address]);
  await age('update public.game_players set last_seen = now() - interval \'61 days\' where player_id = $1', [erin.address]);
  const listed = await carol.client.from('game_claims').select('id').eq('owner_id', erin.address);
  assert.equal(listed.data, [], 'a lapsed claim is not listed');
  assert.is((await place(carol, 5, 5)).error, null, 'a lapsed claim protects nothing');
  assert.is((await claim(carol, { x1: 4, y1: 6, x2: 9, y2: 10 })).error, null, 'a lapsed claim yields to a new one');
  const left = async () => (await operator.query('select x1, y1 from public.game_claims where owner_id = $1 order by x1', [erin.address])).rows;
  assert.equal(await left(), [{ x1: -10, y1: -9 }], 'the claim in the way is gone');
  await enterAtSpawn(erin);
  assert.equal(await left(), [], 'the owner back after 60 days finds its claims gone');
  const blocks = await rules.snapshot('game_blocks') as Array<{ x: number; y: number }>;
  assert.ok(blocks.some((b) => b.x === 5 && b.y === 5), 'the land keeps its blocks');
  assert.is((await carol.client.from('game_claims').delete().eq('owner_id', carol.address)).error, null);
});

test("removing a block that links blocks on water inside someone else's claim to land is refused; the owner may", async () => {
  const [erin, fred] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  // Tile (-18, 12) is land; (-19, 12) and (-20, 12) are water (components/terrain.ts, the world seed).
  assert.equal([isWaterTile(-18, 12, WORLD_SEED), isWaterTile(-19, 12, WORLD_SEED), isWaterTile(-20, 12, WORLD_SEED)], [false, true, true]);
  await Promise.all([rules.walkTo(erin, -600, 400), rules.walkTo(fred, -600, 400)]);
  assert.is((await claim(erin, { x1: -26, y1: 8, x2: -19, y2: 14 })).error, null);
  assert.is((await place(fred, -18, 12)).error, null, 'land, outside the claim');
  assert.is((await place(erin, -19, 12)).error, null, 'on water, linked to land by fred\'s block');
  assert.is((await place(erin, -20, 12)).error, null);
  await rules.refused('sinking the claim\'s chain', 'game_blocks', () => remove(fred, -18, 12), '42501', 403,
    new RegExp(`^That would sink blocks on land claimed by ${nameOf(erin)}\\.$`));
  const removed = await remove(erin, -18, 12);
  assert.equal(removed.data, [{ x: -18, y: 12 }], 'honest: the owner may');
  const left = (await rules.snapshot('game_blocks') as Array<{ x: number; y: number }>).filter((b) => b.y === 12 && b.x <= -18);
  assert.equal(left, [], 'and the chain sank with it');
  assert.is((await erin.client.from('game_claims').delete().eq('owner_id', erin.address)).error, null);
});

/** Listens on the region topic `topic` as `p`, keeping each `claims` payload; resolves once joined. */
async function listen(p: TestPlayer, topic: string, heard: unknown[]) {
  await p.client.realtime.setAuth();
  const channel = p.client.channel(topic, { config: { private: true, broadcast: { ack: true } } })
    .on('broadcast', { event: 'claims' }, ({ payload }) => {
      // realtime.send adds the message's id to the payload.
      const { id, ...changes } = payload as Record<string, unknown>;
      assert.type(id, 'string');
      heard.push(changes);
    });
  await subscribeChannel(channel);
  return channel;
}
const mentions = (payload: unknown, id: string) => JSON.stringify(payload).includes(id);

test('claims and trust are sent on the region topics the claim overlaps, deletes included', async () => {
  // Tiles -10..-6 by -9..-5 lie in region 0:0 only; region 1:0 starts at tile 16.
  const near: unknown[] = [];
  const beside: unknown[] = [];
  const channels = [await listen(carol, 'blocks:0:0', near), await listen(carol, 'blocks:1:0', beside)];
  try {
    const rect = { x1: -10, y1: -9, x2: -6, y2: -5 };
    const made = await claim(alice, rect).select('id').single();
    assert.is(made.error, null, JSON.stringify(made.error));
    const id = made.data!.id as string;
    const member = { claim_id: id, player_id: bob.address };
    assert.is((await alice.client.from('game_claim_members').insert(member)).error, null);
    assert.is((await bob.client.from('game_claim_members').delete().eq('claim_id', id).eq('player_id', bob.address)).error, null, 'a member leaves');
    assert.is((await alice.client.from('game_claim_members').insert(member)).error, null);
    assert.is((await alice.client.from('game_claims').delete().eq('id', id)).error, null);
    const row = { id, owner_id: alice.address, owner_name: nameOf(alice), ...rect };
    const expected = [{ made: [row] }, { trusted: [member] }, { untrusted: [member] }, { trusted: [member] }, { gone: [row] }];
    const ours = () => near.filter((payload) => mentions(payload, id));
    await waitFor(() => ours().length >= expected.length, { message: 'the claim changes heard' });
    // Barrier: a claim made after these reaches the same topic; the trust removed with the claim sent nothing.
    const after = await claim(alice, rect).select('id').single();
    assert.is(after.error, null, JSON.stringify(after.error));
    await waitFor(() => near.some((payload) => mentions(payload, after.data!.id as string)), { message: 'the barrier claim heard' });
    assert.equal(ours(), expected);
    assert.equal(beside.filter((payload) => mentions(payload, id)), [], 'nothing on a region the claim does not overlap');
  } finally {
    await alice.client.from('game_claims').delete().eq('owner_id', alice.address).eq('y1', -9);
    await Promise.all(channels.map((channel) => carol.client.removeChannel(channel)));
  }
});

test('a claim across a region border is sent on each region it overlaps', async () => {
  // Tiles 12..20 by -9..-5: regions 0:0 and 1:0.
  const left: unknown[] = [];
  const right: unknown[] = [];
  const channels = [await listen(carol, 'blocks:0:0', left), await listen(carol, 'blocks:1:0', right)];
  try {
    const made = await claim(alice, { x1: 12, y1: -9, x2: 20, y2: -5 }).select('id').single();
    assert.is(made.error, null, JSON.stringify(made.error));
    const id = made.data!.id as string;
    await waitFor(() => left.some((p) => mentions(p, id)) && right.some((p) => mentions(p, id)), { message: 'the claim heard on both sides' });
    const row = { id, owner_id: alice.address, owner_name: nameOf(alice), x1: 12, y1: -9, x2: 20, y2: -5 };
    assert.equal([left.filter((p) => mentions(p, id)), right.filter((p) => mentions(p, id))], [[{ made: [row] }], [{ made: [row] }]]);
  } finally {
    await alice.client.from('game_claims').delete().eq('owner_id', alice.address).eq('y1', -9);
    await Promise.all(channels.map((channel) => carol.client.removeChannel(channel)));
  }
});

test('a client cannot speak claims on a region topic: only the database does', async () => {
  const heard: unknown[] = [];
  const channel = await listen(carol, 'blocks:0:0', heard);
  const forger = await listen(bob, 'blocks:0:0', []);
  try {
    const fake = { made: [{ id: '00000000-0000-4000-8000-000000000000', owner_id: bob.address, owner_name: 'Forged', x1: -10, y1: -9, x2: -6, y2: -5 }] };
    const answer = await forger.send({ type: 'broadcast', event: 'claims', payload: fake });
    // Barrier: a real claim after the fake one reaches carol.
    const made = await claim(alice, { x1: -10, y1: -9, x2: -6, y2: -5 }).select('id').single();
    assert.is(made.error, null, JSON.stringify(made.error));
    const id = made.data!.id as string;
    await waitFor(() => heard.some((p) => mentions(p, id)), { message: 'the claim heard' });
    assert.ok(heard.some((p) => mentions(p, id)), 'the real claim is heard');
    assert.equal(heard.filter((p) => mentions(p, 'Forged')), [], 'the forged claim is not');
    assert.is(answer, 'timed out', 'as on hosted, a send the write policies refuse is dropped without a reply');
  } finally {
    await alice.client.from('game_claims').delete().eq('owner_id', alice.address).eq('y1', -9);
    await Promise.all([carol.client.removeChannel(channel), bob.client.removeChannel(forger)]);
  }
});

test('claims leave the postgres_changes publication: nothing follows them there any more', async () => {
  const { rows } = await operator.query(`select tablename from pg_publication_tables where pubname = 'supabase_realtime' and tablename like 'game_claim%'`);
  assert.equal(rows, []);
});

test.run();
