/**
 * Figures of a large world, as JSON lines (medians of several runs where a case repeats):
 *
 * - "seed": a square of N blocks around spawn written by COPY as the database owner (triggers
 *   off: nobody hears a seed); seconds, and the table's and the database's size on disk.
 * - "enter": the game's own net/ code in Node enters at spawn; ms and bytes received (HTTP bodies
 *   and socket frames) until every tile of the 800x600 view shows what the database holds.
 * - "walk": the same player walks east at full speed (3 px a step, 187.5 px/s) through built land
 *   for WALK_SECONDS; the share of the view's tiles missing, sampled every 100 ms, and the most
 *   chunks held.
 * - "page": Chromium enters the world (ENTER WORLD to view complete: ms, bytes received, from the
 *   DevTools protocol), walks east holding D for WALK_SECONDS (view tiles missing, sampled every
 *   100 ms) and reports its JS heap.
 * - "spread": LISTENERS players far apart, each running net/blocks/blocks.ts at its own spot, while blocks
 *   are placed at random players' spots (the owner's inserts, which take the same triggers as a
 *   player's): socket frames with block changes per change, and the server's CPU in cores.
 *
 * `--blocks 1000000,10000000` chooses the world sizes (default both; `--quick`: 1M, shorter cases);
 * `--listeners N` the spread players.
 */
import { chromium, type CDPSession } from 'playwright-core';
import WebSocket from 'ws';
import { createBlockSync } from '../net/blocks/blocks.js';
import { TILE_SIZE, tileOfPixel } from '../protocol/geometry.js';
import { PLAYER_SPEED, STEP_MS } from '../protocol/movement.js';
import { BLOCK_TYPES, SPAWN_RADIUS } from '../protocol/rules.js';
import { startDatabase } from '../server/db/index.js';
import { CHROMIUM_ARGS } from '../test/support/browser.js';
import { createPageWallet, installTestWallet } from '../test/support/browser-wallet.js';
import { makeDataDir, removeDataDir, signInPlayer, startTestServer, type ClientWiring, type TestServer } from '../test/support/harness.js';
import { startHeadlessPlayer } from '../test/support/headless-player.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { serverCpuSeconds, serverPids } from './processes.js';
import { median, pick, printHeader, printRow, QUICK, round } from './stats.js';

const argument = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const SIZES = argument('--blocks', QUICK ? '1000000' : '1000000,10000000').split(',').map(Number);
const LISTENERS = Number(argument('--listeners', String(pick(1000, 200))));
const ENTER_RUNS = pick(5, 3);
const WALK_SECONDS = pick(30, 10);
const CHANGES = pick(200, 60);
/** 100 builders' wallets (44 characters, as real ones), so rows weigh what real rows weigh. */
const OWNERS = Array.from({ length: 100 }, (_, i) => `Builder${String(i).padStart(3, '0')}${'x'.repeat(34)}`);
const typeAt = (x: number, y: number) => BLOCK_TYPES[(((x * 7 + y * 3) % 16) + 16) % 16]!;

/** The seeded square: tiles [-half, half) on both axes, every tile but spawn's. */
function seededAt(half: number, x: number, y: number): string | undefined {
  if (x < -half || x >= half || y < -half || y >= half || (Math.abs(x) <= SPAWN_RADIUS && Math.abs(y) <= SPAWN_RADIUS)) return undefined;
  return typeAt(x, y);
}

/** Tiles of a view of width x height pixels around pixel (px, py). */
function viewTiles(px: number, py: number, width = 800, height = 600): Array<[number, number]> {
  const tiles: Array<[number, number]> = [];
  for (let y = tileOfPixel(py - height / 2); y <= tileOfPixel(py + height / 2 - 1); y++) {
    for (let x = tileOfPixel(px - width / 2); x <= tileOfPixel(px + width / 2 - 1); x++) tiles.push([x, y]);
  }
  return tiles;
}

async function seed(blocks: number): Promise<{ dataDir: string; half: number }> {
  const dataDir = await makeDataDir();
  const half = Math.ceil(Math.sqrt(blocks + 25) / 2);
  const db = await startDatabase({ dataDir, migrationsDir: 'supabase/migrations' });
  try {
    const started = performance.now();
    const types = BLOCK_TYPES.join(',');
    const owners = OWNERS.join(',');
    const program = `awk 'BEGIN { split(${JSON.stringify(types)}, t, ","); split(${JSON.stringify(owners)}, o, ","); n = 0;
      for (x = -${half}; x < ${half}; x++) for (y = -${half}; y < ${half}; y++) {
        if (x >= -${SPAWN_RADIUS} && x <= ${SPAWN_RADIUS} && y >= -${SPAWN_RADIUS} && y <= ${SPAWN_RADIUS}) continue; if (n++ >= ${blocks}) exit;
        k = ((x * 7 + y * 3) % 16 + 16) % 16; printf "%d\\t%d\\t%s\\t%s\\tBuilder\\n", x, y, t[k + 1], o[(x * 31 + y) % 100 < 0 ? (x * 31 + y) % 100 + 101 : (x * 31 + y) % 100 + 1] } }'`;
    await db.transaction(async (tx) => {
      await tx.exec(`set local statement_timeout = 0`);
      await tx.exec(`set local session_replication_role = replica`);
      await tx.exec(`copy public.game_blocks (x, y, block_type, player_id, player_name) from program '${program.replace(/'/g, "''").replace(/\n\s*/g, ' ')}'`);
    });
    // The server's own statements have a time limit; these may take longer on a large table.
    await db.transaction(async (tx) => {
      await tx.exec(`set local statement_timeout = 0`);
      await tx.exec('analyze public.game_blocks');
    });
    const seconds = (performance.now() - started) / 1000;
    const row = await db.transaction(async (tx) => {
      await tx.exec(`set local statement_timeout = 0`);
      const { rows } = await tx.query<{ n: number; table_mb: number; database_mb: number }>(
        `select count(*)::int as n, pg_total_relation_size('public.game_blocks') / 1048576.0 as table_mb, pg_database_size(current_database()) / 1048576.0 as database_mb from public.game_blocks`,
      );
      return rows[0]!;
    });
    printRow({ bench: 'world', case: 'seed', blocks: row.n, seconds: round(seconds, 1), table_mb: round(Number(row.table_mb), 1), database_mb: round(Number(row.database_mb), 1) });
  } finally {
    await db.close();
  }
  return { dataDir, half };
}

/** A received socket message as bytes, whatever form `ws` gives it in. */
function frameBytes(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

/** Client wiring that counts bytes received: HTTP bodies and socket frames. */
function countingWiring(): { wiring: ClientWiring; bytes(): number } {
  let bytes = 0;
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const body = await response.arrayBuffer();
    bytes += body.byteLength;
    const empty = response.status === 204 || response.status === 205 || response.status === 304;
    return new Response(empty ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const transport = class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      this.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => (bytes += frameBytes(data).length));
    }
  } as unknown as typeof WebSocket;
  return { wiring: { fetch: counting, transport }, bytes: () => bytes };
}

async function enterAndWalk(server: TestServer, blocks: number, half: number): Promise<void> {
  const times: number[] = [];
  const received: number[] = [];
  for (let run = 0; run < ENTER_RUNS; run++) {
    const counter = countingWiring();
    const player = await signInPlayer(server, undefined, counter.wiring);
    const started = performance.now();
    const headless = await startHeadlessPlayer(server, player, { name: `Enter${run}`, pose: { x: 16, y: 16, facing: 1, moving: false } });
    const view = viewTiles(16, 16);
    await waitFor(() => view.every(([x, y]) => headless.tiles.get(`${x},${y}`) === seededAt(half, x, y)), { timeout: 30_000, interval: 5, message: 'the view' });
    times.push(performance.now() - started);
    received.push(counter.bytes());
    if (run < ENTER_RUNS - 1) await headless.session.close();
    else await walk(headless, blocks, half);
  }
  printRow({ bench: 'world', case: 'enter', blocks, runs: ENTER_RUNS, view_complete_ms: round(median(times), 0), received_kb: round(median(received) / 1024, 1) });
}

async function walk(headless: Awaited<ReturnType<typeof startHeadlessPlayer>>, blocks: number, half: number): Promise<void> {
  headless.pose.moving = true;
  const walker = setInterval(() => (headless.pose.x += PLAYER_SPEED), STEP_MS);
  const missing: number[] = [];
  let mostChunks = 0;
  const started = performance.now();
  while (performance.now() - started < WALK_SECONDS * 1000) {
    await sleep(100);
    const view = viewTiles(headless.pose.x, headless.pose.y);
    missing.push(view.filter(([x, y]) => headless.tiles.get(`${x},${y}`) !== seededAt(half, x, y)).length / view.length);
    mostChunks = Math.max(mostChunks, headless.session.heldChunks().length);
  }
  clearInterval(walker);
  const walked = headless.pose.x - 16;
  await headless.session.close();
  missing.sort((a, b) => a - b);
  printRow({
    bench: 'world', case: 'walk', blocks, seconds: WALK_SECONDS, walked_px: walked, samples: missing.length,
    missing_mean_pct: round((100 * missing.reduce((a, b) => a + b, 0)) / missing.length, 3),
    missing_max_pct: round(100 * missing.at(-1)!, 2), most_chunks_held: mostChunks,
  });
}

/** Bytes received by the page (HTTP bodies as sent, socket frames) since `since`, from the DevTools protocol. */
function pageBytes(cdp: CDPSession): () => number {
  let bytes = 0;
  cdp.on('Network.loadingFinished', (e) => (bytes += e.encodedDataLength));
  cdp.on('Network.webSocketFrameReceived', (e) => (bytes += e.response.payloadData.length));
  return () => bytes;
}

async function page(baseUrl: string, blocks: number, half: number): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 800, height: 600 }, baseURL: baseUrl });
    const wallet = createPageWallet();
    await installTestWallet(context, wallet);
    const tab = await context.newPage();
    const cdp = await context.newCDPSession(tab);
    await cdp.send('Network.enable');
    const bytes = pageBytes(cdp);
    await tab.goto('/');
    await tab.evaluate(([address]) => localStorage.setItem(`username_${address}`, 'Walker'), [wallet.address]);
    await tab.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
    const enterButton = tab.getByRole('button', { name: 'ENTER WORLD' });
    await enterButton.waitFor();
    const before = bytes();
    const started = performance.now();
    await enterButton.click();
    /** Share of the canvas's view tiles not showing what the database holds. */
    const missingShare = async () =>
      tab.evaluate(
        ({ h, types, tile, spawnRadius }) => {
          const t = window.__tessera;
          const me = t?.localPlayer();
          const canvas = document.querySelector('canvas');
          if (!t || !me || !canvas) return 1;
          let missing = 0;
          let all = 0;
          for (let y = Math.floor((me.y - canvas.height / 2) / tile); y <= Math.floor((me.y + canvas.height / 2 - 1) / tile); y++) {
            for (let x = Math.floor((me.x - canvas.width / 2) / tile); x <= Math.floor((me.x + canvas.width / 2 - 1) / tile); x++) {
              const spawn = Math.abs(x) <= spawnRadius && Math.abs(y) <= spawnRadius;
              const inside = x >= -h && x < h && y >= -h && y < h;
              const expected = inside && !spawn ? types[(((x * 7 + y * 3) % 16) + 16) % 16] : null;
              all++;
              if (t.tileAt(x, y) !== expected) missing++;
            }
          }
          return missing / all;
        },
        { h: half, types: [...BLOCK_TYPES], tile: TILE_SIZE, spawnRadius: SPAWN_RADIUS },
      );
    while ((await missingShare()) > 0) {
      if (performance.now() - started > 30_000) throw new Error('the page view did not complete in 30 s');
      await sleep(5);
    }
    const viewMs = performance.now() - started;
    const enterKb = (bytes() - before) / 1024;
    await tab.keyboard.down('KeyD');
    const missing: number[] = [];
    const walkStart = performance.now();
    while (performance.now() - walkStart < WALK_SECONDS * 1000) {
      await sleep(100);
      missing.push(await missingShare());
    }
    await tab.keyboard.up('KeyD');
    const heap = await cdp.send('Runtime.getHeapUsage');
    const jsHeap = await tab.evaluate(() => (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize);
    printRow({
      bench: 'world', case: 'page', blocks, view_complete_ms: round(viewMs, 0), received_kb: round(enterKb, 1),
      walk_seconds: WALK_SECONDS, missing_mean_pct: round((100 * missing.reduce((a, b) => a + b, 0)) / missing.length, 3),
      missing_max_pct: round(100 * Math.max(...missing), 2), heap_mb: round(heap.usedSize / 1048576, 1), js_heap_mb: round(jsHeap / 1048576, 1),
    });
    await context.close();
  } finally {
    await browser.close();
  }
}

async function spread(server: TestServer, blocks: number, half: number): Promise<void> {
  // Players on a grid 64 tiles apart (two regions), inside the built square where it is large enough.
  const side = Math.ceil(Math.sqrt(LISTENERS));
  const spacing = 64;
  const spots = Array.from({ length: LISTENERS }, (_, i) => ({ x: ((i % side) - side / 2) * spacing + 8, y: (Math.floor(i / side) - side / 2) * spacing + 8 }));
  let frames = 0;
  const transport = class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      // A block change: a broadcast on a blocks topic (joins' replies and system messages aside).
      this.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
        const frame = frameBytes(data).toString('latin1');
        if (frame.includes('realtime:blocks:') && !frame.includes('phx_') && !frame.includes('"system"')) frames++;
      });
    }
  } as unknown as typeof WebSocket;
  const syncs: Array<ReturnType<typeof createBlockSync>> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < spots.length) {
        const spot = spots[next++]!;
        const player = await signInPlayer(server, undefined, { transport });
        await player.client.realtime.setAuth();
        const sync = createBlockSync(player.client, {
          playerId: player.address, playerName: () => 'Listener', emit: () => {}, notice: () => {},
        });
        sync.follow(spot.x * TILE_SIZE, spot.y * TILE_SIZE);
        syncs.push(sync);
      }
    }),
  );
  const pump = setInterval(() => syncs.forEach((sync, i) => sync.follow(spots[i]!.x * TILE_SIZE, spots[i]!.y * TILE_SIZE)), 200);
  await waitFor(() => syncs.every((sync) => sync.heldChunks().length >= 8), { timeout: 600_000, interval: 500, message: 'every listener holding its chunks' });
  const { default: pg } = await import('pg');
  const { connectAsOperator } = await import('../test/support/server.js');
  const operator: InstanceType<typeof pg.Client> = await connectAsOperator(server);
  const pids = await serverPids(server);
  const cpu = () => serverCpuSeconds(pids);
  await sleep(2000);
  const idleBefore = cpu();
  await sleep(5000);
  const idleCores = (cpu() - idleBefore) / 5;
  frames = 0;
  /** Rows changed: a removal where nothing stood changes nothing, and nothing is sent for it. */
  let changes = 0;
  const cpuBefore = cpu();
  const started = performance.now();
  for (let i = 0; i < CHANGES; i++) {
    const spot = spots[Math.floor(Math.random() * spots.length)]!;
    const x = spot.x + 3;
    const y = spot.y + 3;
    changes += (await operator.query(`delete from public.game_blocks where x = $1 and y = $2`, [x, y])).rowCount ?? 0;
    changes += 1;
    await operator.query(
      `insert into public.game_blocks (x, y, block_type, player_id, player_name) values ($1, $2, 'gold', $3, 'Builder')`,
      [x, y, OWNERS[i % OWNERS.length]],
    );
    await sleep(20);
  }
  await sleep(2000);
  const seconds = (performance.now() - started) / 1000;
  const cores = (cpu() - cpuBefore) / seconds;
  clearInterval(pump);
  printRow({
    bench: 'world', case: 'spread', blocks, listeners: LISTENERS, changes, frames, frames_per_change: round(frames / changes, 2),
    changes_per_second: round(changes / seconds, 1), server_cpu_cores: round(cores, 2), idle_server_cpu_cores: round(idleCores, 2),
  });
  await operator.end();
  await Promise.all(syncs.map((sync) => sync.close()));
  void half;
}

printHeader('world', { warmups: 0, runs: ENTER_RUNS, sizes: SIZES, listeners: LISTENERS, walkSeconds: WALK_SECONDS });
for (const blocks of SIZES) {
  const { dataDir, half } = await seed(blocks);
  const server = await startTestServer(dataDir);
  try {
    await enterAndWalk(server, blocks, half);
    await page(server.url, blocks, half);
    if (!process.argv.includes('--no-spread')) await spread(server, blocks, half);
  } finally {
    await server.stop();
    await removeDataDir(dataDir);
  }
}
