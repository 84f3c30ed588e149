/**
 * Every cap and budget holds when one wallet sends its writes at once: each is seeded (as the
 * database owner, triggers off) to one short of its limit, then the wallet's supabase-js client
 * sends several writes together, round after round, so that a race would show. Exactly the
 * limit is stored, and every write past it gets the cap's own refusal. One statement of many
 * rows that crosses a cap is refused whole.
 */
import type pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectAsOperator } from '../../../support/server.js';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { enterAtSpawn, nameOf, type WriteResult } from '../../../support/rules.js';

/** Rounds per cap, and writes sent at once per round (the REST server serves 4 of one caller at once). */
const ROUNDS = 6;
const AT_ONCE = 4;

let server: TestServer;
let operator: pg.Client;

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
});

test.after(async () => {
  await operator.end();
  await server.stop();
});

/** Runs `sql` as the database owner with the game's triggers off: a seed nobody hears or judges. */
async function seed(sql: string, params: unknown[] = []): Promise<void> {
  await operator.query('set session_replication_role = replica');
  try {
    await operator.query(sql, params);
  } finally {
    await operator.query('set session_replication_role = origin');
  }
}

/** The single number `sql` answers. */
async function count(sql: string, params: unknown[] = []): Promise<number> {
  return Number(Object.values((await operator.query(sql, params)).rows[0] as object)[0]);
}

/** One write's outcome in a sortable form: `ok` or `status code message`. */
const outcome = ({ error, status }: WriteResult) => (error ? `${status} ${error.code} ${error.message}` : 'ok');

/** Sends `AT_ONCE` writes together and expects exactly one to pass and the others to get `refusal`. */
async function oneOfManyPasses(label: string, write: (i: number) => PromiseLike<WriteResult>, refusal: string) {
  const results = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => write(i)));
  assert.equal(results.map(outcome).sort(), ['ok', ...Array<string>(AT_ONCE - 1).fill(refusal)].sort(), label);
}

test('at most 500 mutes per wallet, however many are sent at once', async () => {
  const muter = await signInPlayer(server);
  const refusal = '400 23514 a player mutes at most 500 wallets';
  const mutes = () => count('select count(*) from public.game_mutes where player_id = $1', [muter.address]);
  const mute = (rows: Array<{ player_id: string; muted_id: string }>) => muter.client.from('game_mutes').insert(rows);
  const fresh = async (seeded: number) => {
    await seed('delete from public.game_mutes where player_id = $1', [muter.address]);
    await seed(`insert into public.game_mutes (player_id, muted_id) select $1, 'seed-' || n from generate_series(1, $2::int) n`, [muter.address, seeded]);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await fresh(499);
    await oneOfManyPasses(`round ${round}`, (i) => mute([{ player_id: muter.address, muted_id: `round-${round}-${i}` }]), refusal);
    assert.is(await mutes(), 500, `round ${round}`);
  }
  await fresh(495);
  const ten = Array.from({ length: 10 }, (_, i) => ({ player_id: muter.address, muted_id: `many-${i}` }));
  assert.is(outcome(await mute(ten)), refusal, '10 mutes in one request at 495');
  assert.is(await mutes(), 495, 'the request is refused whole');
  assert.is(outcome(await mute(ten.slice(0, 5))), 'ok', 'honest: 5 mutes in one request reach 500');
  assert.is(await mutes(), 500);
});

test('at most 50 players trusted on a claim, however many are trusted at once', async () => {
  const owner = await signInPlayer(server);
  await enterAtSpawn(owner);
  const claimId = (await operator.query<{ id: string }>(
    `insert into public.game_claims (owner_id, owner_name, x1, y1, x2, y2) values ($1, $2, 200, 200, 204, 204) returning id`,
    [owner.address, nameOf(owner)],
  )).rows[0]!.id;
  const refusal = '400 23514 A claim trusts at most 50 players.';
  const members = () => count('select count(*) from public.game_claim_members where claim_id = $1', [claimId]);
  const trust = (rows: Array<{ claim_id: string; player_id: string }>) => owner.client.from('game_claim_members').insert(rows);
  const fresh = async (seeded: number) => {
    await seed('delete from public.game_claim_members where claim_id = $1', [claimId]);
    await seed('delete from game_private.rate_buckets where player_id = $1', [owner.address]);
    await seed(`insert into public.game_claim_members (claim_id, player_id) select $1, 'seed-' || n from generate_series(1, $2::int) n`, [claimId, seeded]);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await fresh(49);
    await oneOfManyPasses(`round ${round}`, (i) => trust([{ claim_id: claimId, player_id: `round-${round}-${i}` }]), refusal);
    assert.is(await members(), 50, `round ${round}`);
  }
  await fresh(45);
  const ten = Array.from({ length: 10 }, (_, i) => ({ claim_id: claimId, player_id: `many-${i}` }));
  assert.is(outcome(await trust(ten)), refusal, '10 members in one request at 45');
  assert.is(await members(), 45, 'the request is refused whole');
  assert.is(outcome(await trust(ten.slice(0, 5))), 'ok', 'honest: 5 members in one request reach 50');
  assert.is(await members(), 50);
});

test('the claim budget: 400 tiles however many claims are made at once', async () => {
  const claimer = await signInPlayer(server);
  await enterAtSpawn(claimer);
  // 5x5 claims in view of spawn, apart from each other.
  const inView = [[4, -9], [4, 5], [-8, -9], [-8, 5]].map(([x, y]) => ({ x1: x!, y1: y!, x2: x! + 4, y2: y! + 4 }));
  const claim = (rects: typeof inView) =>
    claimer.client.from('game_claims').insert(rects.map((r) => ({ owner_id: claimer.address, owner_name: nameOf(claimer), ...r })));
  const used = () => count('select coalesce(sum((x2 - x1 + 1) * (y2 - y1 + 1)), 0) from public.game_claims where owner_id = $1', [claimer.address]);
  const fresh = async (seeded: number) => {
    await seed('delete from public.game_claims where owner_id = $1', [claimer.address]);
    await seed('delete from game_private.rate_buckets where player_id = $1', [claimer.address]);
    // Far away 5x5 claims of 25 tiles each.
    await seed(
      `insert into public.game_claims (owner_id, owner_name, x1, y1, x2, y2)
       select $1, $2, 1000 + 6 * n, 1000, 1004 + 6 * n, 1004 from generate_series(1, $3::int) n`,
      [claimer.address, nameOf(claimer), seeded],
    );
  };
  for (let round = 0; round < ROUNDS; round++) {
    await fresh(15);
    await oneOfManyPasses(`round ${round}`, (i) => claim([inView[i]!]), '400 23514 This claim needs 25 tiles; you have 0 left.');
    assert.is(await used(), 400, `round ${round}`);
  }
  await fresh(14);
  assert.is(outcome(await claim(inView.slice(0, 3))), '400 23514 This claim needs 25 tiles; you have 0 left.', '3 claims in one request with 50 tiles left');
  assert.is(await used(), 350, 'the request is refused whole');
  assert.is(outcome(await claim(inView.slice(0, 2))), 'ok', 'honest: 2 claims in one request use the 50 tiles');
  assert.is(await used(), 400);
});

test('at most 5 reports an hour per reporter, however many are sent at once', async () => {
  const reporter = await signInPlayer(server);
  const refusal = '429 TS429 Too many reports: slow down';
  const recent = () => count(`select count(*) from public.game_reports where reporter_id = $1 and created_at > now() - interval '1 hour'`, [reporter.address]);
  const report = (reported: string[]) =>
    reporter.client.from('game_reports').insert(reported.map((id) => ({ reporter_id: reporter.address, reported_id: id, reason: 'spam' })));
  const fresh = async (seeded: number) => {
    await seed('delete from public.game_reports where reporter_id = $1', [reporter.address]);
    await seed(`insert into public.game_reports (reporter_id, reported_id, reason) select $1, 'seed-' || n, 'spam' from generate_series(1, $2::int) n`, [reporter.address, seeded]);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await fresh(4);
    await oneOfManyPasses(`round ${round}`, (i) => report([`round-${round}-${i}`]), refusal);
    assert.is(await recent(), 5, `round ${round}`);
  }
  await fresh(3);
  assert.is(outcome(await report(['many-1', 'many-2', 'many-3'])), refusal, '3 reports in one request after 3');
  assert.is(await recent(), 3, 'the request is refused whole');
  assert.is(outcome(await report(['many-1', 'many-2'])), 'ok', 'honest: 2 reports in one request reach 5');
  assert.is(await recent(), 5);
});

test('a rate bucket gives each token once, however many writes ask at once', async () => {
  const refusal = '429 TS429 Too many voice clips: slow down';
  const clipsOf = (p: TestPlayer) => count('select count(*) from public.game_voice_messages where player_id = $1', [p.address]);
  const speak = (p: TestPlayer, n: number) =>
    p.client.from('game_voice_messages').insert(Array.from({ length: n }, () => ({ player_id: p.address, player_name: nameOf(p), audio_data: 'AAAA', x: 0, y: 0 })));
  // A new speaker each round: the server answers a refused caller's repeats itself until the
  // bucket refills (one voice token every 5 s, long after the writes of a round).
  const speakerWith = async (tokens: number) => {
    const speaker = await signInPlayer(server);
    await enterAtSpawn(speaker);
    await seed(`insert into game_private.rate_buckets (player_id, kind, tokens, updated_at) values ($1, 'voice clips', $2, now())`, [speaker.address, tokens]);
    return speaker;
  };
  for (let round = 0; round < ROUNDS; round++) {
    const speaker = await speakerWith(1);
    await oneOfManyPasses(`round ${round}`, () => speak(speaker, 1), refusal);
    assert.is(await clipsOf(speaker), 1, `round ${round}`);
  }
  const speaker = await speakerWith(2);
  assert.is(outcome(await speak(speaker, 3)), refusal, '3 clips in one request with 2 tokens');
  assert.is(await clipsOf(speaker), 0, 'the request is refused whole');
  assert.is(outcome(await speak(speaker, 2)), 'ok', 'honest: 2 clips in one request take the 2 tokens');
  assert.is(await clipsOf(speaker), 2);
});

test('the movement budget is spent once, however many moves and hits are sent at once', async () => {
  const [walker, east, south] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  await Promise.all([walker, east, south].map((p) => enterAtSpawn(p)));
  const place = async (p: TestPlayer, x: number, y: number, slack = 0) => {
    await seed('update public.game_players set x = $2, y = $3, last_seen = now() where player_id = $1', [p.address, x, y]);
    await seed('update game_private.last_positions set x = $2, y = $3, slack = $4, at = now() where player_id = $1', [p.address, x, y, slack]);
  };
  const beat = (x: number, y: number) =>
    walker.client.from('game_players').upsert({ player_id: walker.address, player_name: nameOf(walker), x, y }, { onConflict: 'player_id' });
  const hit = (victim: TestPlayer, x: number, y: number) =>
    walker.client.from('game_combat_logs').insert({
      attacker_id: walker.address, attacker_name: nameOf(walker), victim_id: victim.address, victim_name: nameOf(victim),
      damage: 25, weapon_type: 'sword', x: 0, y: 0, attacker_x: x, attacker_y: y,
    });
  // From (3000, 0) with the full 771 px budget, four moves of 700 px in four directions: once one
  // is taken, every other is at least 989 px from it, which 71 px and 4 s of walking do not reach.
  const moves = [() => beat(2300, 0), () => beat(3000, 700), () => hit(east, 3700, 0), () => hit(south, 3000, -700)];
  for (let round = 0; round < ROUNDS; round++) {
    await place(walker, 3000, 0, 771);
    await place(east, 3730, 0);
    await place(south, 3000, -730);
    await seed('delete from public.game_combat_logs where attacker_id = $1', [walker.address]);
    const results = await Promise.all(moves.map((move) => move()));
    const passed = results.filter((r) => !r.error).length;
    assert.is(passed, 1, `round ${round}: ${JSON.stringify(results.map(outcome))}`);
    for (const r of results.filter((r) => r.error)) {
      assert.match(outcome(r), /^400 23514 implausible (movement: \d+ px in [\d.]+ s|attacker position: \d+ px from the last one)$/, `round ${round}`);
    }
  }
});

test('a wallet holds one name however many names it sends at once', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    // A wallet of its own each round: the heartbeats of every round would pass presence's rate.
    const player = await signInPlayer(server);
    const names = Array.from({ length: AT_ONCE }, (_, i) => `R${round}N${i}${player.address.slice(0, 6)}`);
    const results = await Promise.all(names.map((name) =>
      player.client.from('game_players').upsert({ player_id: player.address, player_name: name, x: 0, y: 0 }, { onConflict: 'player_id' })));
    assert.equal(results.map(outcome), names.map(() => 'ok'), `round ${round}`);
    const held = (await operator.query('select player_name from public.game_held_names where player_id = $1', [player.address])).rows;
    const shown = (await operator.query('select player_name from public.game_players where player_id = $1', [player.address])).rows;
    assert.is(held.length, 1, `round ${round}`);
    assert.equal(held, shown, `round ${round}: the name held is the name shown`);
  }
});

test.run();
