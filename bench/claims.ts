/**
 * Land-claims benchmark against the built server (TESSERA_SERVER or dist/server.mjs): the
 * database time of one block placement by a signed-in player, as EXPLAIN ANALYZE reports it
 * (every row and statement trigger included), in three worlds:
 *   none:    no claim anywhere;
 *   outside: 10,000 claims in the world, none on the tile;
 *   trusted: the same 10,000 and one more on the tile, owned by another wallet that trusts the
 *            placing player (the costliest path of the check: claim found, wallet, membership,
 *            owner's presence).
 * Each line also gives the claim check's own time (the trigger's time in the same plan).
 * Each sample runs in a transaction as the player (role and JWT claims set as the server sets
 * them for a request) and is rolled back, so every sample places the same block on an empty
 * tile. One JSON line per case: p50/p95 in ms, min/median/max over RUNS runs; then the p50
 * delta of each case over `none` (target: trusted adds at most 0.3 ms).
 * Then what counting active play costs a presence heartbeat that moved: the database time of
 * such a heartbeat with the counting trigger (game_players_play_time) and with it disabled.
 */
import { connectAsOperator } from '../test/support/server.js';
import { startTestServer } from '../test/support/harness.js';
import { nameOf, twoPlayersAtSpawn } from '../test/support/rules.js';
import { QUICK, median, percentile, printHeader, round, spread } from './stats.js';

const RUNS = QUICK ? 2 : 5;
const SAMPLES = QUICK ? 100 : 300;
const WARMUP = 50;
const CLAIMS = 10_000;
/** The tile placed on: east of spawn, in the player's view, on land. */
const TILE = { x: 5, y: 0 };

const server = await startTestServer();
const operator = await connectAsOperator(server);
try {
  printHeader('claims', { warmups: WARMUP, runs: RUNS, samples: SAMPLES, claims: CLAIMS });
  const [builder, owner] = await twoPlayersAtSpawn(server);
  const sub = (await builder.client.auth.getUser()).data.user!.id;
  const claims = JSON.stringify({ sub, role: 'authenticated', aud: 'authenticated' });
  const row = `(${TILE.x}, ${TILE.y}, 'stone', '${builder.address}', '${nameOf(builder)}')`;

  /** The time (ms) spent in the claim check (trigger game_blocks_rights) by each placement measured. */
  let checkTimes: number[] = [];
  /** The database time (ms) of one placement, rolled back; notes the claim check's own time in checkTimes. */
  async function placement(): Promise<number> {
    await operator.query('begin');
    try {
      // A fresh presence and a full bucket for every sample, as the operator.
      await operator.query('update public.game_players set x = x where player_id = $1', [builder.address]);
      await operator.query('delete from game_private.rate_buckets where player_id = $1', [builder.address]);
      await operator.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [claims]);
      const { rows } = await operator.query(`explain (analyze, format json) insert into public.game_blocks (x, y, block_type, player_id, player_name) values ${row}`);
      const plan = (rows[0]['QUERY PLAN'] as Array<{ 'Execution Time': number; Triggers: Array<{ 'Trigger Name': string; Time: number }> }>)[0]!;
      checkTimes.push(plan.Triggers.find((t) => t['Trigger Name'] === 'game_blocks_rights')?.Time ?? 0);
      return plan['Execution Time'];
    } finally {
      await operator.query('rollback');
    }
  }

  let step = 0;
  /** The database time (ms) of one heartbeat 1 px from the last, rolled back. */
  async function heartbeat(): Promise<number> {
    await operator.query('begin');
    try {
      await operator.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [claims]);
      const { rows } = await operator.query(
        `explain (analyze, format json) insert into public.game_players (player_id, player_name, x, y) values ($1, $2, $3, 0)
         on conflict (player_id) do update set x = excluded.x, y = excluded.y`,
        [builder.address, nameOf(builder), 1 + (step++ % 2)]);
      return (rows[0]['QUERY PLAN'] as Array<{ 'Execution Time': number }>)[0]!['Execution Time'];
    } finally {
      await operator.query('rollback');
    }
  }

  /** p50 and p95 (ms) of SAMPLES calls of `sample` after WARMUP unmeasured ones. */
  async function measure(sample: () => Promise<number> = placement): Promise<{ p50: number; p95: number; check_p50: number }> {
    for (let i = 0; i < WARMUP; i++) await sample();
    const times: number[] = [];
    checkTimes = [];
    for (let i = 0; i < SAMPLES; i++) times.push(await sample());
    return { p50: percentile(times, 50), p95: percentile(times, 95), check_p50: percentile(checkTimes, 50) };
  }

  // The three worlds in turn in every run, so that a change in the machine's load falls on all three.
  const results: Record<string, Array<{ p50: number; p95: number; check_p50: number }>> = { none: [], outside: [], trusted: [] };
  for (let run = 0; run < RUNS; run++) {
    await operator.query('delete from public.game_claims');
    await operator.query('analyze public.game_claims');
    results.none!.push(await measure());
    // 10,000 claims of 5x5 tiles in a 100x100 grid east of spawn, all the owner's.
    await operator.query(`
      insert into public.game_claims (owner_id, owner_name, x1, y1, x2, y2)
      select $1, $2, 20 + 45 * i, -4500 + 90 * j, 24 + 45 * i, -4496 + 90 * j
      from generate_series(0, 99) i, generate_series(0, 99) j`, [owner.address, nameOf(owner)]);
    await operator.query('analyze public.game_claims');
    results.outside!.push(await measure());
    const covering = await operator.query(
      `insert into public.game_claims (owner_id, owner_name, x1, y1, x2, y2) values ($1, $2, 4, -3, 10, 3) returning id`,
      [owner.address, nameOf(owner)]);
    await operator.query('insert into public.game_claim_members (claim_id, player_id) values ($1, $2)', [covering.rows[0].id, builder.address]);
    results.trusted!.push(await measure());
  }

  const p50 = (name: string) => median(results[name]!.map((r) => r.p50));
  for (const [name, runs] of Object.entries(results)) {
    console.log(JSON.stringify({
      bench: 'claims', case: name, claims: name === 'none' ? 0 : name === 'outside' ? CLAIMS : CLAIMS + 1,
      p50_ms: spread(runs.map((r) => r.p50), 3), p95_ms: spread(runs.map((r) => r.p95), 3),
      claim_check_p50_ms: spread(runs.map((r) => r.check_p50), 3),
    }));
  }
  console.log(JSON.stringify({
    bench: 'claims', case: 'delta_p50_ms',
    outside: round(p50('outside') - p50('none'), 3), trusted: round(p50('trusted') - p50('none'), 3), target_trusted: 0.3,
  }));

  const beats: Record<string, Array<{ p50: number; p95: number; check_p50: number }>> = { counted: [], uncounted: [] };
  for (let run = 0; run < RUNS; run++) {
    await operator.query('update public.game_players set x = 1, y = 0 where player_id = $1', [builder.address]);
    beats.counted!.push(await measure(heartbeat));
    await operator.query('alter table public.game_players disable trigger game_players_play_time');
    beats.uncounted!.push(await measure(heartbeat));
    await operator.query('alter table public.game_players enable trigger game_players_play_time');
  }
  for (const [name, runs] of Object.entries(beats)) {
    console.log(JSON.stringify({ bench: 'claims', case: `heartbeat_${name}`, p50_ms: spread(runs.map((r) => r.p50), 3), p95_ms: spread(runs.map((r) => r.p95), 3) }));
  }
} finally {
  await operator.end();
  await server.stop();
}
