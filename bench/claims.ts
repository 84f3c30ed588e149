/**
 * Land-claims benchmark against the built server (TESSERA_SERVER or dist/server.mjs): the
 * database time of one block placement by a signed-in player, as EXPLAIN ANALYZE reports it
 * (every row and statement trigger included), in three worlds:
 *   none:    no claim anywhere;
 *   outside: 10,000 claims in the world, none on the tile;
 *   trusted: the same 10,000 and one more on the tile, owned by another wallet that trusts the
 *            placing player (the costliest path of the check: claim found, wallet, membership,
 *            owner's presence).
 * Each sample runs in a transaction as the player (role and JWT claims set as the server sets
 * them for a request) and is rolled back, so every sample places the same block on an empty
 * tile. One JSON line per case: p50/p95 in ms, min/median/max over RUNS runs; then the p50
 * delta of each case over `none` (target: trusted adds at most 0.3 ms).
 */
import { connectAsOperator } from '../test/support/server.js';
import { signInPlayer, startTestServer } from '../test/server/harness.js';
import { enterAtSpawn, nameOf } from '../test/server/rules.js';
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
  const [builder, owner] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await Promise.all([enterAtSpawn(builder), enterAtSpawn(owner)]);
  const sub = (await builder.client.auth.getUser()).data.user!.id;
  const claims = JSON.stringify({ sub, role: 'authenticated', aud: 'authenticated' });
  const row = `(${TILE.x}, ${TILE.y}, 'stone', '${builder.address}', '${nameOf(builder)}')`;

  /** The database time (ms) of one placement, rolled back. */
  async function placement(): Promise<number> {
    await operator.query('begin');
    try {
      // A fresh presence and a full bucket for every sample, as the operator.
      await operator.query('update public.game_players set x = x where player_id = $1', [builder.address]);
      await operator.query('delete from game_private.rate_buckets where player_id = $1', [builder.address]);
      await operator.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [claims]);
      const { rows } = await operator.query(`explain (analyze, format json) insert into public.game_blocks (x, y, block_type, player_id, player_name) values ${row}`);
      return (rows[0]['QUERY PLAN'] as Array<{ 'Execution Time': number }>)[0]!['Execution Time'];
    } finally {
      await operator.query('rollback');
    }
  }

  /** p50 and p95 (ms) of SAMPLES placements after WARMUP unmeasured ones. */
  async function measure(): Promise<{ p50: number; p95: number }> {
    for (let i = 0; i < WARMUP; i++) await placement();
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) times.push(await placement());
    return { p50: percentile(times, 50), p95: percentile(times, 95) };
  }

  const results: Record<string, Array<{ p50: number; p95: number }>> = { none: [], outside: [], trusted: [] };
  for (let run = 0; run < RUNS; run++) results.none!.push(await measure());

  // 10,000 claims of 5x5 tiles in a 100x100 grid east of spawn, all the owner's.
  await operator.query(`
    insert into public.game_claims (owner_id, owner_name, x1, y1, x2, y2)
    select $1, $2, 20 + 45 * i, -4500 + 90 * j, 24 + 45 * i, -4496 + 90 * j
    from generate_series(0, 99) i, generate_series(0, 99) j`, [owner.address, nameOf(owner)]);
  await operator.query('analyze public.game_claims');
  const covering = await operator.query(
    `insert into public.game_claims (owner_id, owner_name, x1, y1, x2, y2) values ($1, $2, 4, -3, 10, 3) returning id`,
    [owner.address, nameOf(owner)]);
  const coveringId = covering.rows[0].id as string;
  for (let run = 0; run < RUNS; run++) {
    await operator.query('delete from public.game_claim_members where claim_id = $1', [coveringId]);
    await operator.query(`update public.game_claims set x1 = 4000, x2 = 4006 where id = $1`, [coveringId]);
    results.outside!.push(await measure());
    await operator.query(`update public.game_claims set x1 = 4, x2 = 10 where id = $1`, [coveringId]);
    await operator.query('insert into public.game_claim_members (claim_id, player_id) values ($1, $2)', [coveringId, builder.address]);
    results.trusted!.push(await measure());
  }

  const p50 = (name: string) => median(results[name]!.map((r) => r.p50));
  for (const [name, runs] of Object.entries(results)) {
    console.log(JSON.stringify({
      bench: 'claims', case: name, claims: name === 'none' ? 0 : name === 'outside' ? CLAIMS : CLAIMS + 1,
      p50_ms: spread(runs.map((r) => r.p50), 3), p95_ms: spread(runs.map((r) => r.p95), 3),
    }));
  }
  console.log(JSON.stringify({
    bench: 'claims', case: 'delta_p50_ms',
    outside: round(p50('outside') - p50('none'), 3), trusted: round(p50('trusted') - p50('none'), 3), target_trusted: 0.3,
  }));
} finally {
  await operator.end();
  await server.stop();
}
