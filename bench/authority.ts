/**
 * Authority benchmark against the built server (TESSERA_SERVER or dist/server.mjs), one JSON line
 * per result.
 *   flood:  one wallet inserts blocks as fast as it can (8 requests in flight, raw fetch), so
 *           nearly all are refused with 429; meanwhile three other wallets each place a block
 *           every 150 ms through supabase-js. Requests/s the server answers for the flooder, and the
 *           p50/p99 latency of the other wallet's writes (target p99 < 50 ms). Also the same
 *           writer without the flood as a baseline. RUNS runs, then their medians.
 *   kill9:  CYCLES times: writers insert blocks one after another, the server is killed with
 *           SIGKILL a random 200-600 ms after the first acknowledgement, restarted on the same DATA_DIR, and every
 *           acknowledged row is looked up. Rows lost in total (target 0).
 */
import { signInPlayer, startTestServer, makeDataDir, removeDataDir, type TestServer } from '../test/server/harness.js';
import { median, percentile, round } from './stats.js';

const RUNS = 3;
const FLOOD_SECONDS = 5;
const FLOOD_IN_FLIGHT = 8;
const WRITE_EVERY_MS = 150;
/** Wallets writing normally at the same time, for enough latency samples per run. */
const CALM_WALLETS = 3;
const CYCLES = 20;
const KILL_WRITERS = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A block insert by raw fetch; resolves to the HTTP status (0 when the server is gone). */
async function postBlock(url: string, anonKey: string, token: string, row: Record<string, unknown>): Promise<number> {
  try {
    const res = await fetch(`${url}/rest/v1/game_blocks`, {
      method: 'POST',
      headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(row),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

async function tokenOf(player: Awaited<ReturnType<typeof signInPlayer>>): Promise<string> {
  return (await player.client.auth.getSession()).data.session!.access_token;
}

/**
 * Latencies (ms) of CALM_WALLETS wallets each inserting a block every WRITE_EVERY_MS through
 * supabase-js for `seconds`, in rows from `y` on.
 */
async function normalWrites(server: TestServer, y: number, seconds: number) {
  const players = await Promise.all(Array.from({ length: CALM_WALLETS }, () => signInPlayer(server)));
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(players.map(async (player, w) => {
    await sleep((w * WRITE_EVERY_MS) / CALM_WALLETS);
    for (let x = 0; Date.now() < end; x++) {
      const started = performance.now();
      const { error } = await player.client.from('game_blocks').insert({ x: 100 + x, y: y + w, block_type: 'stone', player_id: player.address, player_name: 'Calm' });
      latencies.push(performance.now() - started);
      if (error) errors++;
      await sleep(Math.max(0, WRITE_EVERY_MS - (performance.now() - started)));
    }
  }));
  return { latencies, errors };
}

async function flood(server: TestServer, y: number, seconds: number) {
  const flooder = await signInPlayer(server);
  const token = await tokenOf(flooder);
  const statuses = new Map<number, number>();
  let next = 0;
  const end = Date.now() + seconds * 1000;
  const lane = async () => {
    while (Date.now() < end) {
      const x = -4000 + (next++ % 8000);
      const status = await postBlock(server.url, server.anonKey, token, { x, y, block_type: 'dirt', player_id: flooder.address, player_name: 'Flood' });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: FLOOD_IN_FLIGHT }, lane));
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  return { rps: total / seconds, refused429: (statuses.get(429) ?? 0) / total, statuses: Object.fromEntries(statuses) };
}

async function floodRuns(): Promise<void> {
  const server = await startTestServer();
  try {
    const rows: { flood_rps: number; flood_429_share: number; p50: number; p99: number; base_p50: number; base_p99: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const band = 2 * CALM_WALLETS + 1;
      const baseline = await normalWrites(server, 1000 + run * band, FLOOD_SECONDS);
      const [flooded, writes] = await Promise.all([
        flood(server, 1000 + run * band + CALM_WALLETS, FLOOD_SECONDS),
        normalWrites(server, 1000 + run * band + CALM_WALLETS + 1, FLOOD_SECONDS),
      ]);
      const row = {
        flood_rps: round(flooded.rps, 0),
        flood_429_share: round(flooded.refused429, 3),
        p50: round(percentile(writes.latencies, 50)),
        p99: round(percentile(writes.latencies, 99)),
        base_p50: round(percentile(baseline.latencies, 50)),
        base_p99: round(percentile(baseline.latencies, 99)),
      };
      rows.push(row);
      console.log(JSON.stringify({
        bench: 'authority', case: 'flood', run, flood_rps: row.flood_rps, flood_429_share: row.flood_429_share,
        flood_statuses: flooded.statuses, other_writes: writes.latencies.length, other_errors: writes.errors,
        other_p50_ms: row.p50, other_p99_ms: row.p99, baseline_p50_ms: row.base_p50, baseline_p99_ms: row.base_p99,
      }));
    }
    const pick = (key: keyof (typeof rows)[number]) => median(rows.map((r) => r[key]));
    console.log(JSON.stringify({
      bench: 'authority', case: 'flood_median', runs: RUNS, flood_rps: pick('flood_rps'), flood_429_share: pick('flood_429_share'),
      other_p50_ms: pick('p50'), other_p99_ms: pick('p99'), baseline_p50_ms: pick('base_p50'), baseline_p99_ms: pick('base_p99'),
      target_p99_ms: 50,
    }));
  } finally {
    await server.stop();
    await removeDataDir(server.dataDir);
  }
}

async function killCycles(): Promise<void> {
  const dataDir = await makeDataDir();
  let server = await startTestServer(dataDir);
  const writers = await Promise.all(Array.from({ length: KILL_WRITERS }, () => signInPlayer(server)));
  const tokens = await Promise.all(writers.map(tokenOf));
  const acknowledged: string[] = [];
  let lost = 0;
  let landedUnacknowledged = 0;
  try {
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const { url, anonKey } = server;
      let stop = false;
      const acked: string[] = [];
      let attempted = 0;
      const lanes = writers.map(async (writer, w) => {
        for (let i = 0; !stop; i++) {
          const x = -4000 + i;
          const y = 100 + cycle * KILL_WRITERS + w;
          attempted++;
          const status = await postBlock(url, anonKey, tokens[w]!, { x, y, block_type: 'stone', player_id: writer.address, player_name: 'Crash' });
          if (status === 201) acked.push(`${x},${y}`);
          else if (status !== 429) break;
        }
      });
      while (acked.length === 0 && attempted < 1000) await sleep(5);
      await sleep(200 + Math.random() * 400);
      await server.kill();
      stop = true;
      await Promise.all(lanes);
      server = await startTestServer(dataDir);
      const res = await fetch(`${server.url}/rest/v1/game_blocks?select=x,y&y=gte.${100 + cycle * KILL_WRITERS}&y=lt.${100 + (cycle + 1) * KILL_WRITERS}`, {
        headers: { apikey: server.anonKey, authorization: `Bearer ${tokens[0]}` },
      });
      const stored = new Set(((await res.json()) as { x: number; y: number }[]).map((r) => `${r.x},${r.y}`));
      const missing = acked.filter((tile) => !stored.has(tile)).length;
      lost += missing;
      landedUnacknowledged += stored.size - (acked.length - missing);
      acknowledged.push(...acked);
      console.log(JSON.stringify({ bench: 'authority', case: 'kill9_cycle', cycle, attempted, acknowledged: acked.length, stored: stored.size, lost: missing }));
    }
    console.log(JSON.stringify({
      bench: 'authority', case: 'kill9', cycles: CYCLES, writers: KILL_WRITERS, acknowledged: acknowledged.length,
      lost, landed_unacknowledged: landedUnacknowledged, target_lost: 0,
    }));
  } finally {
    await server.stop();
    await removeDataDir(dataDir);
  }
}

await floodRuns();
await killCycles();
