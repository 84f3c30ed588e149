/**
 * Authority benchmark against the built server (TESSERA_SERVER or dist/server.mjs), one JSON line
 * per result.
 *   flood:  one wallet inserts blocks as fast as it can (8 requests in flight, raw fetch), so
 *           nearly all are refused with 429; meanwhile three other wallets each place a block
 *           every 150 ms through supabase-js. Requests/s the server answers for the flooder, and the
 *           p50/p99 latency of the other wallet's writes (target p99 < 50 ms). Also the same
 *           writer without the flood as a baseline. RUNS runs, then their min/median/max.
 *   expensive: one wallet sends the costliest reads it can (EXPENSIVE_IN_FLIGHT in flight) over
 *           VOICE_CLIPS stored 1,000,000-character voice clips, while another wallet reads the
 *           blocks near it every READ_EVERY_MS through supabase-js: that wallet's p50/p95 (target
 *           p95 <= 50 ms) per mix: `refused` (the shapes server/rest/bounds.ts refuses: like on
 *           audio_data, a 2,000-value in list, a 41-level or tree, a huge offset, an unindexed
 *           sort, every clip's audio), `allowed` (the worst still served: clips' audio one at a
 *           time, a scan on an unindexed column) and `none` (the baseline).
 *   kill9:  CYCLES times: writers insert blocks one after another, the server is killed with
 *           SIGKILL a random 200-600 ms after the first acknowledgement, restarted on the same DATA_DIR, and every
 *           acknowledged row is looked up. Rows lost in total (target 0).
 */
import { signInPlayer, startTestServer, makeDataDir, removeDataDir, type TestServer } from '../test/support/harness.js';
import { enterAtSpawn, nameOf, playerAtSpawn, tilesInViewOfSpawn } from '../test/support/rules.js';
import { readServiceRoleKey } from '../test/support/server.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { QUICK, median, percentile, printHeader, round, spread } from './stats.js';

const RUNS = QUICK ? 2 : 3;
const FLOOD_SECONDS = QUICK ? 2 : 5;
const FLOOD_IN_FLIGHT = 8;
const WRITE_EVERY_MS = 150;
/** Wallets writing normally at the same time, for enough latency samples per run. */
const CALM_WALLETS = 3;
const EXPENSIVE_SECONDS = 5;
const EXPENSIVE_IN_FLIGHT = 4;
const READ_EVERY_MS = 100;
const VOICE_CLIPS = 30;
const CYCLES = QUICK ? 4 : 20;
const KILL_WRITERS = 8;

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

/** The service-role key `server` wrote to its DATA_DIR: it clears the bench's blocks between phases. */
function serviceToken(dataDir: string): Promise<string> {
  return readServiceRoleKey({ dataDir });
}

/** Deletes every block near spawn, so the next phase finds its tiles empty. */
async function clearBlocks(url: string, anonKey: string, service: string): Promise<void> {
  const res = await fetch(`${url}/rest/v1/game_blocks?x=gte.-20&x=lte.20`, { method: 'DELETE', headers: { apikey: anonKey, authorization: `Bearer ${service}` } });
  if (!res.ok) throw new Error(`clearing blocks: ${res.status} ${await res.text()}`);
}

/** A presence heartbeat at spawn by raw fetch, for a wallet whose supabase-js client points at an older server. */
async function presentAtSpawn(url: string, anonKey: string, token: string, address: string, name: string): Promise<void> {
  const res = await fetch(`${url}/rest/v1/game_players?on_conflict=player_id`, {
    method: 'POST',
    headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'resolution=merge-duplicates' },
    body: JSON.stringify({ player_id: address, player_name: name, x: 0, y: 0 }),
  });
  if (!res.ok) throw new Error(`presence: ${res.status} ${await res.text()}`);
}

/** The slice of the tiles in view of spawn that wallet number `n` builds on (40 each: a full burst). */
const TILES = tilesInViewOfSpawn();
const tilesOf = (n: number) => TILES.slice(n * 40, n * 40 + 40);

async function tokenOf(player: Awaited<ReturnType<typeof signInPlayer>>): Promise<string> {
  return (await player.client.auth.getSession()).data.session!.access_token;
}

/**
 * Latencies (ms) of CALM_WALLETS wallets (tile slices from `slice` on) each placing a block every
 * WRITE_EVERY_MS through supabase-js for `seconds`, standing at spawn.
 */
async function normalWrites(server: TestServer, slice: number, seconds: number) {
  const players = await Promise.all(Array.from({ length: CALM_WALLETS }, () => signInPlayer(server)));
  await Promise.all(players.map((p) => enterAtSpawn(p)));
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(players.map(async (player, w) => {
    await sleep((w * WRITE_EVERY_MS) / CALM_WALLETS);
    const tiles = tilesOf(slice + w);
    for (let i = 0; Date.now() < end && i < tiles.length; i++) {
      const started = performance.now();
      const { error } = await player.client.from('game_blocks').insert({ ...tiles[i]!, block_type: 'stone', player_id: player.address, player_name: nameOf(player) });
      latencies.push(performance.now() - started);
      if (error) errors++;
      await sleep(Math.max(0, WRITE_EVERY_MS - (performance.now() - started)));
    }
  }));
  return { latencies, errors };
}

async function flood(server: TestServer, slice: number, seconds: number) {
  const flooder = await playerAtSpawn(server);
  const tiles = tilesOf(slice);
  const token = await tokenOf(flooder);
  const statuses = new Map<number, number>();
  let next = 0;
  const end = Date.now() + seconds * 1000;
  const lane = async () => {
    while (Date.now() < end) {
      const status = await postBlock(server.url, server.anonKey, token, { ...tiles[next++ % tiles.length]!, block_type: 'dirt', player_id: flooder.address, player_name: nameOf(flooder) });
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
    const service = await serviceToken(server.dataDir);
    for (let run = 0; run < RUNS; run++) {
      await clearBlocks(server.url, server.anonKey, service);
      const baseline = await normalWrites(server, 0, FLOOD_SECONDS);
      await clearBlocks(server.url, server.anonKey, service);
      const [flooded, writes] = await Promise.all([
        flood(server, CALM_WALLETS, FLOOD_SECONDS),
        normalWrites(server, CALM_WALLETS + 1, FLOOD_SECONDS),
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
    const pick = (key: keyof (typeof rows)[number]) => spread(rows.map((r) => r[key]));
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

/** The read mixes an attacker sends in the `expensive` case. */
const EXPENSIVE_MIXES: Record<string, string[]> = {
  none: [],
  refused: [
    'game_voice_messages?select=id&audio_data=ilike.*A*B*C*D*',
    `game_blocks?x=in.(${Array.from({ length: 2000 }, (_, i) => i).join(',')})`,
    `game_blocks?or=(${'or(x.eq.1,'.repeat(40)}x.eq.2${')'.repeat(41)}`,
    'game_blocks?order=x,y&offset=999999999',
    'game_voice_messages?select=id&order=audio_data.desc',
    'game_voice_messages?select=audio_data',
  ],
  allowed: ['game_voice_messages?select=audio_data&limit=1', 'game_blocks?select=x&player_name=eq.Nobody'],
};

/** Stores VOICE_CLIPS clips of 1,000,000 characters (three per wallet: the voice burst). */
async function storeClips(server: TestServer): Promise<void> {
  const audio = 'QUJD'.repeat(250_000);
  const speakers = await Promise.all(Array.from({ length: VOICE_CLIPS / 3 }, () => signInPlayer(server)));
  for (const speaker of speakers) {
    await enterAtSpawn(speaker);
    for (let i = 0; i < 3; i++) {
      const { error } = await speaker.client.from('game_voice_messages').insert({ player_id: speaker.address, player_name: nameOf(speaker), audio_data: audio, x: 0, y: 0 });
      if (error) throw new Error(`storing a clip: ${error.message}`);
    }
  }
}

async function expensiveRuns(): Promise<void> {
  const server = await startTestServer();
  try {
    await storeClips(server);
    const [attacker, reader] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
    const token = await tokenOf(attacker);
    for (const [mix, paths] of Object.entries(EXPENSIVE_MIXES)) {
      const rows: { p50: number; p95: number; sent: number }[] = [];
      for (let run = 0; run < RUNS; run++) {
        const end = Date.now() + EXPENSIVE_SECONDS * 1000;
        const statuses = new Map<number, number>();
        const lane = async (first: number) => {
          for (let i = first; paths.length && Date.now() < end; i++) {
            const res = await fetch(`${server.url}/rest/v1/${paths[i % paths.length]}`, { headers: { apikey: server.anonKey, authorization: `Bearer ${token}` } });
            await res.arrayBuffer();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          }
        };
        const latencies: number[] = [];
        const read = async () => {
          while (Date.now() < end) {
            const started = performance.now();
            const { error } = await reader.client.from('game_blocks').select('x, y, block_type').gte('x', -64).lte('x', 64).gte('y', -64).lte('y', 64).limit(10_000);
            if (error) throw new Error(`reader: ${error.message}`);
            latencies.push(performance.now() - started);
            await sleep(Math.max(0, READ_EVERY_MS - (performance.now() - started)));
          }
        };
        await Promise.all([read(), ...Array.from({ length: EXPENSIVE_IN_FLIGHT }, (_, i) => lane(i))]);
        const row = { p50: round(percentile(latencies, 50)), p95: round(percentile(latencies, 95)), sent: [...statuses.values()].reduce((a, b) => a + b, 0) };
        rows.push(row);
        console.log(JSON.stringify({ bench: 'authority', case: 'expensive', mix, run, attacker_requests: row.sent, attacker_statuses: Object.fromEntries(statuses), reads: latencies.length, other_p50_ms: row.p50, other_p95_ms: row.p95 }));
      }
      console.log(JSON.stringify({
        bench: 'authority', case: 'expensive_median', mix, runs: RUNS, attacker_requests: median(rows.map((r) => r.sent)),
        other_p50_ms: median(rows.map((r) => r.p50)), other_p95_ms: median(rows.map((r) => r.p95)), target_p95_ms: 50,
      }));
    }
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
  const service = await serviceToken(dataDir);
  const acknowledged: string[] = [];
  let lost = 0;
  let landedUnacknowledged = 0;
  try {
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const { url, anonKey } = server;
      await clearBlocks(url, anonKey, service);
      await Promise.all(writers.map((writer, w) => presentAtSpawn(url, anonKey, tokens[w]!, writer.address, nameOf(writer))));
      let stop = false;
      const acked: string[] = [];
      let attempted = 0;
      const lanes = writers.map(async (writer, w) => {
        const tiles = tilesOf(w);
        for (let i = 0; !stop && i < tiles.length; i++) {
          const { x, y } = tiles[i]!;
          attempted++;
          const status = await postBlock(url, anonKey, tokens[w]!, { x, y, block_type: 'stone', player_id: writer.address, player_name: nameOf(writer) });
          if (status === 201) acked.push(`${x},${y}`);
          else if (status !== 429) break;
        }
      });
      await waitFor(() => acked.length > 0 || attempted >= 1000, { timeout: 60_000, interval: 5, message: 'a first acknowledged write' });
      await sleep(200 + Math.random() * 400);
      await server.kill();
      stop = true;
      await Promise.all(lanes);
      server = await startTestServer(dataDir);
      const res = await fetch(`${server.url}/rest/v1/game_blocks?select=x,y&x=gte.-20&x=lte.20`, {
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

printHeader('authority', { warmups: 0, runs: RUNS, floodSeconds: FLOOD_SECONDS, killCycles: CYCLES });
await floodRuns();
await expensiveRuns();
await killCycles();
