/**
 * Multiplayer figures, as JSON lines:
 * - "placement": a block placed in one Chromium is seen by another; p50 and p99 in ms.
 * - "pose-rate": live position updates per second one player hears from another who walks.
 * - "interest": 50 simulated players (Node sessions) walking in 5 far-apart groups of 10;
 *   each client's inbound position messages per second, against what it would hear if every
 *   player heard everyone.
 * (Entering a large world and walking through it: bench/world.ts.)
 * Run figures are given as min/median/max of several runs. `--quick` runs fewer, shorter cases.
 */
import { chromium } from 'playwright-core';
import { biomeAt, WORLD_SEED } from '../components/terrain.js';
import { POSE_KEYFRAME_STEPS } from '../net/poses/poses.js';
import { tileCentreOnScreen } from '../components/camera.js';
import { tileOfPixel } from '../protocol/geometry.js';
import { CHROMIUM_ARGS } from '../test/support/browser.js';
import { pageCamera } from '../test/support/canvas-points.js';
import { twoPlayersInWorld } from '../test/support/enter-world.js';
import { createTestWallet, makeDataDir, removeDataDir, signInPlayer, startTestServer, type TestServer } from '../test/support/harness.js';
import { startHeadlessPlayer, type HeadlessPlayer } from '../test/support/headless-player.js';
import { seedPresence } from './seed.js';
import { median, percentile, pick, printHeader, printRow, round, spread } from './stats.js';
import { sleep } from '../test/support/wait.js';

const PLACEMENTS = pick(25, 8);
const POSE_RUNS = pick(3, 2);
const POSE_SECONDS = pick(4, 2);
const GROUPS = 5;
const GROUP_SIZE = 10;
const INTEREST_SECONDS = pick(6, 3);

/** Two browsers in the world; the first places blocks, the second times when each appears. */
async function placementLatency(server: TestServer): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const [{ page: builder }, { page: watcher }] = await twoPlayersInWorld(browser, server.url, ['Builder', 'Watcher']);
    // Out of spawn, then a row of land tiles to build on.
    await builder.keyboard.down('KeyD');
    await builder.waitForTimeout(1000);
    await builder.keyboard.up('KeyD');
    await builder.waitForTimeout(200);
    const me = await builder.evaluate(() => window.__tessera!.localPlayer()!);
    const targets: Array<{ x: number; y: number }> = [];
    for (let dy = -4; dy <= 4 && targets.length < PLACEMENTS; dy++) {
      for (let dx = 2; dx <= 10 && targets.length < PLACEMENTS; dx++) {
        const x = tileOfPixel(me.x) + dx;
        const y = tileOfPixel(me.y) + dy;
        if (!biomeAt(x, y, WORLD_SEED).includes('ocean')) targets.push({ x, y });
      }
    }
    // Plain page script: helpers the TypeScript loader adds to named functions do not exist in the page.
    await watcher.evaluate(`(() => {
      const tiles = ${JSON.stringify(targets)};
      const seen = (window.__seen = {});
      setInterval(() => {
        for (const { x, y } of tiles) if (!seen[x + ',' + y] && window.__tessera.tileAt(x, y)) seen[x + ',' + y] = Date.now();
      }, 1);
    })()`);
    const placedAt: Record<string, number> = {};
    const camera = await pageCamera(builder);
    for (const { x, y } of targets) {
      const { x: cx, y: cy } = tileCentreOnScreen(camera, x, y);
      placedAt[`${x},${y}`] = await builder.evaluate(
        ([px, py]) => {
          const canvas = document.querySelector('canvas.game-canvas')!;
          const rect = canvas.getBoundingClientRect();
          const at = Date.now();
          const init = { clientX: rect.left + px!, clientY: rect.top + py!, button: 0, bubbles: true };
          canvas.dispatchEvent(new MouseEvent('mousedown', init));
          canvas.dispatchEvent(new MouseEvent('mouseup', init));
          return at;
        },
        [cx, cy],
      );
      await sleep(250);
    }
    await sleep(1500);
    const seen = await watcher.evaluate(() => (window as unknown as { __seen: Record<string, number> }).__seen);
    const latencies = Object.entries(placedAt)
      .filter(([key]) => seen[key])
      .map(([key, at]) => seen[key]! - at);
    printRow({
      bench: 'multiplayer',
      case: 'placement',
      placements: targets.length,
      seen: latencies.length,
      p50_ms: median(latencies),
      p99_ms: percentile(latencies, 99),
    });
  } finally {
    await browser.close();
  }
}

/** A simulated player (signed in with `wallet`, a new one by default): a real session whose engine side is a pose that walks. */
async function walker(server: TestServer, name: string, x: number, y: number, wallet = createTestWallet()): Promise<HeadlessPlayer> {
  return startHeadlessPlayer(server, await signInPlayer(server, wallet), { name, pose: { x, y, facing: 1, moving: false } });
}

/** Moves every walker at 3 px per 16 ms, back and forth around its start, until stopped. */
function walkAll(walkers: HeadlessPlayer[]): () => void {
  let step = 0;
  const timer = setInterval(() => {
    step++;
    for (const w of walkers) {
      if (step % 120 === 0) w.pose.facing = -w.pose.facing;
      w.pose.x += 3 * w.pose.facing;
      w.pose.moving = true;
    }
  }, 16);
  return () => {
    clearInterval(timer);
    for (const w of walkers) w.pose.moving = false;
  };
}

/** One walker walks, another listens; updates heard per second. */
async function poseRate(server: TestServer): Promise<void> {
  const rates: number[] = [];
  for (let run = 0; run < POSE_RUNS; run++) {
    const [mover, listener] = await Promise.all([walker(server, `Mover${run}`, 16, 16), walker(server, `Listener${run}`, 48, 16)]);
    await sleep(1500);
    listener.posesHeard = 0;
    const stop = walkAll([mover]);
    await sleep(POSE_SECONDS * 1000);
    stop();
    rates.push(listener.posesHeard / POSE_SECONDS);
    await Promise.all([mover.session.close(), listener.session.close()]);
  }
  printRow({ bench: 'multiplayer', case: 'pose-rate', runs: POSE_RUNS, hz: spread(rates), keyframeSteps: POSE_KEYFRAME_STEPS });
}

/**
 * 50 walkers in 5 groups far apart: each should hear its own group only. The groups stand where
 * their presence rows were written before their server started (bench/seed.ts): a new player
 * enters at spawn, and the movement rules would refuse one that appeared 10,000 px away.
 */
async function interest(): Promise<void> {
  const wallets = Array.from({ length: GROUPS * GROUP_SIZE }, () => createTestWallet());
  // Groups 10,000 px apart: about ten regions, far beyond any 3x3 neighbourhood.
  const starts = wallets.map((wallet, n) => ({
    address: wallet.address,
    name: `G${Math.floor(n / GROUP_SIZE)}P${n % GROUP_SIZE}`,
    x: Math.floor(n / GROUP_SIZE) * 10_000 + 16 + (n % GROUP_SIZE) * 8,
    y: 16,
  }));
  const dataDir = await makeDataDir();
  await seedPresence(dataDir, starts);
  const server = await startTestServer(dataDir);
  const walkers: HeadlessPlayer[] = [];
  try {
    for (const [n, start] of starts.entries()) {
      walkers.push(await walker(server, start.name, start.x, start.y, wallets[n]));
    }
    await sleep(2000);
    for (const w of walkers) w.posesHeard = 0;
    const stop = walkAll(walkers);
    await sleep(INTEREST_SECONDS * 1000);
    stop();
    const inbound = walkers.map((w) => w.posesHeard / INTEREST_SECONDS);
    // A walker sends a keyframe every POSE_KEYFRAME_STEPS steps of 16 ms, plus an event per turn.
    const sentPerPlayer = 1000 / (POSE_KEYFRAME_STEPS * 16);
    printRow({
      bench: 'multiplayer',
      case: 'interest',
      players: walkers.length,
      groups: GROUPS,
      inboundPerClientP50: round(median(inbound)),
      inboundPerClientMax: round(Math.max(...inbound)),
      nearbySenders: GROUP_SIZE - 1,
      expectedFromNearby: round((GROUP_SIZE - 1) * sentPerPlayer),
      ifEveryoneHeardEveryone: round((walkers.length - 1) * sentPerPlayer),
    });
    await Promise.all(walkers.map((w) => w.session.close()));
  } finally {
    await server.stop();
    await removeDataDir(dataDir);
  }
}

printHeader('multiplayer', { warmups: 0, runs: POSE_RUNS, placements: PLACEMENTS });
const server = await startTestServer();
try {
  await placementLatency(server);
  await poseRate(server);
} finally {
  await server.stop();
}
await interest();
process.exit(0);
