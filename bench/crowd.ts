/**
 * Crowd figures for the live layer, as JSON lines. Headless players run the game's own `net/`
 * code (`startHeadlessPlayer`) against the built server, which is pinned to one core with its
 * PostgreSQL while this process (the load) runs on the other. Walkers move as the engine moves a
 * player, 3 px at each of their fixed steps, so what they send is what a game client sends.
 *
 * - "crowd": players walking in random directions inside one 800x600 screen around spawn, one
 *   in ten placing a block every 3 s: pose sender -> receiver latency, how often each walker is
 *   heard by each other player, how soon a direction change is heard, block latency to every
 *   other player and blocks never seen, a bystander's REST latency (measured in a process of its own,
 *   `bench/bystander.ts`), server CPU and memory (PSS), and disconnects.
 * - "spread": players each walking in a region of its own, far apart: the same figures.
 *
 * Players are placed by writing their presence rows before the server starts (bench/seed.ts).
 * `--quick` runs smaller, shorter cases; `--players N` and `--spread N` set the crowd sizes.
 */
import { cpus } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isWaterTile, WORLD_SEED } from '../components/terrain.js';
import { REGION_PX, tileOfPixel } from '../protocol/geometry.js';
import { walkVelocity } from '../protocol/movement.js';
import { PRESENCE_HEARTBEAT_MS, SPAWN_RADIUS } from '../protocol/rules.js';
import { createTestWallet, makeDataDir, removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../test/support/harness.js';
import { startHeadlessPlayer, type HeadlessPlayer } from '../test/support/headless-player.js';
import { startBystander } from './bystander-process.js';
import { cpuSeconds, pin, pssMb, serverPids } from './processes.js';
import { seedPresence } from './seed.js';
import { percentile, pick, printHeader, printRow, round } from './stats.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { LatencyHistogram } from '../test/support/load/figures.js';

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};

const CROWD = argument('--players', pick(250, 60));
const SPREAD = argument('--spread', pick(1000, 150));
const SECONDS = pick(30, 10);
const PLACE_EVERY_MS = 3000;
/**
 * Walkers start walking at moments of their own within this span, and poses are measured from
 * WALK_WARMUP_MS after the first starts until before they stop: a crowd that started and stopped
 * in the same step would put a pose of every walker in one batch to every other (all 62,500 at
 * once, in this one process), which no crowd of players does.
 */
const WALK_START_SPREAD_MS = 1000;
const WALK_WARMUP_MS = 2000;
/**
 * Most players entering the world per second. Each entry is a dozen channel joins, each asked
 * of the database's policies; 1,000 players entering within 5 s (2,800 joins a second) is more
 * than the one server core answers before the clients' 10 s join timeout.
 */
const ARRIVALS_PER_SECOND = 50;
/** Pixels between two spread players: more than two regions, so none hears another. */
const SPREAD_GAP_PX = 3 * REGION_PX;

/**
 * `measure` of each of the server's processes, summed. CPU seconds (`cpuSeconds`) are cheap to
 * read while the crowd runs. PSS (`pssMb`) is not: the kernel takes a few hundred milliseconds
 * to total a large process's pages, and this process's event loop waits for it, so it is read
 * only while no latency is being measured.
 */
async function serverTotal(server: TestServer, measure: (pid: number) => number): Promise<number> {
  return (await serverPids(server)).reduce((sum, pid) => sum + measure(pid), 0);
}

/** A walker's direction: -1, 0 or 1 in x and y (one of eight, never standing still). */
function randomDirection(): { dx: number; dy: number } {
  const angle = (Math.floor(Math.random() * 8) * Math.PI) / 4;
  const dx = Math.round(Math.cos(angle));
  const dy = Math.round(Math.sin(angle));
  return { dx, dy };
}

/**
 * Moves `walker` one fixed step as the engine moves a walking player (3 px a step, diagonals
 * at the same speed), turning at random every 1-3 s and at the edges of its box.
 */
function stepWalker(walker: Walker): void {
  const now = Date.now();
  const before = walker.direction;
  if (now >= walker.nextChange) {
    walker.direction = randomDirection();
    walker.nextChange = now + 1000 + Math.random() * 2000;
  }
  const pose = walker.headless.pose;
  const { left, top, right, bottom } = walker.box;
  const { vx, vy } = walkVelocity(walker.direction.dx, walker.direction.dy);
  const dx = pose.x + vx < left || pose.x + vx > right ? -walker.direction.dx : walker.direction.dx;
  const dy = pose.y + vy < top || pose.y + vy > bottom ? -walker.direction.dy : walker.direction.dy;
  walker.direction = { dx, dy };
  // A turn at random or at the box's edge; drawing the direction it already walks in is none.
  if (dx !== before.dx || dy !== before.dy) walker.changedAt = now;
  const step = walkVelocity(dx, dy);
  walker.headless.pose = { x: pose.x + step.vx, y: pose.y + step.vy, facing: dx < 0 ? -1 : 1, moving: true };
}

interface Walker {
  headless: HeadlessPlayer;
  /** Where the walker must stay (pixels). */
  box: { left: number; top: number; right: number; bottom: number };
  direction: { dx: number; dy: number };
  /** When the current direction started (ms since the epoch). */
  changedAt: number;
  nextChange: number;
  /** When it starts walking (ms since the epoch). */
  startsAt: number;
}

interface Figures {
  poseLatency: LatencyHistogram;
  directionHeard: LatencyHistogram;
  /** Per (receiver, sender) pair: updates heard per second and the longest gap between two. */
  heardRate: number[];
  heardGap: number[];
  blockLatency: number[];
  blocksMissed: number;
  blocksPlaced: number;
  rest: number[];
  disconnects: number;
}

/** Runs `work` over `items` with at most `limit` at once. */
async function inBatches<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}

/**
 * One case: `count` players starting at `start(i)` and walking inside `box(i)`; every tenth
 * places a block every 3 s when `build`. Prints one JSON line.
 */
async function runCase(
  name: string,
  count: number,
  start: (i: number) => { x: number; y: number },
  box: (i: number) => Walker['box'],
  build: boolean,
): Promise<void> {
  if (count === 0) return; // `--players 0` or `--spread 0` skips the case
  const wallets = Array.from({ length: count }, () => createTestWallet());
  const names = wallets.map((_, i) => `Crowd${String(i).padStart(4, '0')}`);
  const dataDir = await makeDataDir();
  await seedPresence(dataDir, wallets.map((wallet, i) => ({ address: wallet.address, name: names[i]!, ...start(i) })));
  const server = await startTestServer(dataDir);
  const pinned = cpus().length >= 2 && (await serverPids(server)).every((pid) => pin(pid, '0')) && pin(process.pid, '1');
  const figures: Figures = {
    poseLatency: new LatencyHistogram(), directionHeard: new LatencyHistogram(), heardRate: [], heardGap: [], blockLatency: [],
    blocksMissed: 0, blocksPlaced: 0, rest: [], disconnects: 0,
  };
  const walkers: Walker[] = [];
  // Per (receiver, sender) pair, at receiver * count + sender: poses heard while walking, when
  // the last one was heard and the longest gap so far (ms), and the direction change last heard.
  const heardCount = new Uint32Array(count * count);
  const heardLast = new Float64Array(count * count);
  const heardGap = new Float64Array(count * count);
  const changeHeard = new Float64Array(count * count);
  /** Per receiver index: tile key -> when its blockSet arrived. */
  const blocksSeen = new Map<number, Map<string, number>>();
  /** Sender index by wallet. */
  const indexOf = new Map<string, number>();
  const refused = new Set<string>();
  /** Walkers move at each of their steps while this holds, each from its own `startsAt`. */
  let walking = false;
  /** Blocks and disconnects are counted while this holds; poses while `measuringPoses` does. */
  let measuring = false;
  let measuringPoses = false;
  /** When pose measurement began (ms since the epoch). */
  let began = 0;
  try {
    const players: TestPlayer[] = await inBatches(wallets, 8, (wallet) => signInPlayer(server, wallet));
    const idlePss = await serverTotal(server, pssMb);
    // Players arrive one after another, as a crowd gathers: over one heartbeat period, and at
    // most ARRIVALS_PER_SECOND. Started in the same second, their heartbeats (every 5 s from
    // each one's start) would all reach the server in that same second of every period.
    const arrivalMs = Math.max(PRESENCE_HEARTBEAT_MS / count, 1000 / ARRIVALS_PER_SECOND);
    await Promise.all(players.map(async (player, i) => {
      await sleep(i * arrivalMs);
      const at = start(i);
      const seenHere = new Map<string, number>();
      blocksSeen.set(i, seenHere);
      const headless = await startHeadlessPlayer(server, player, {
        name: names[i]!,
        pose: { x: at.x, y: at.y, facing: 1, moving: false },
        onStep() {
          if (walking && walkers[i] && Date.now() >= walkers[i]!.startsAt) stepWalker(walkers[i]!);
        },
        onConnection(state) {
          if (state === 'restoring' && measuring) figures.disconnects++;
        },
        onEvent(event) {
          if (!measuring) return;
          const now = Date.now();
          if (event.kind === 'playerPose') {
            if (!measuringPoses) return;
            figures.poseLatency.add(now - event.t);
            const k = indexOf.get(event.id);
            if (k === undefined) return;
            const pair = i * count + k;
            heardCount[pair]!++;
            heardGap[pair] = Math.max(heardGap[pair]!, now - (heardLast[pair] || began));
            heardLast[pair] = now;
            const changedAt = walkers[k]!.changedAt;
            // Changes made before the measurement began are not timed: their first pose may have been heard before it.
            if (changedAt >= began && event.t >= changedAt && changeHeard[pair] !== changedAt) {
              changeHeard[pair] = changedAt;
              figures.directionHeard.add(now - changedAt);
            }
          } else if (event.kind === 'blockRefused') {
            refused.add(`${event.x},${event.y}`);
          } else if (event.kind === 'blockSet' && event.live) {
            const key = `${event.x},${event.y}`;
            if (!seenHere.has(key)) seenHere.set(key, now);
          }
        },
      });
      const walker: Walker = { headless, box: box(i), direction: randomDirection(), changedAt: 0, nextChange: 0, startsAt: 0 };
      walkers[i] = walker;
      indexOf.set(player.address, i);
    }));

    // The crowd is measured in play, not while it connects: every player's channels (its
    // region 3x3 included, joined from its first step) are joined first.
    const connecting = Date.now();
    await waitFor(
      () => walkers.every((walker) => walker.headless.session.poseTopics().length === 9 && walker.headless.player.client.getChannels().every((channel) => channel.state === 'joined')),
      { timeout: 300_000, interval: 250, message: 'every player joined' },
    );
    const joinedSeconds = (Date.now() - connecting) / 1000;
    const bystander = await startBystander(server, SECONDS);
    const placedAt = new Map<string, number>();
    const used = new Set<string>();
    let stepping = true;
    const starting = Date.now();
    for (const walker of walkers) walker.startsAt = starting + Math.random() * WALK_START_SPREAD_MS;
    walking = true;
    await sleep(WALK_WARMUP_MS);
    began = Date.now();
    measuring = true;
    measuringPoses = true;
    // Every tenth walker builds, each on a beat of its own: builders spread over the 3 s, as
    // players who never agreed on when to place a block.
    const builders = build ? walkers.filter((_, i) => i % 10 === 0) : [];
    const placing = Promise.all(builders.map(async (walker, k) => {
      await sleep((k * PLACE_EVERY_MS) / builders.length);
      while (stepping) {
        const tile = freeTileNear(walker.headless.pose, used);
        if (tile) {
          placedAt.set(`${tile.x},${tile.y}`, Date.now());
          walker.headless.queues.outbox.push({ kind: 'placeBlock', x: tile.x, y: tile.y, blockType: 'stone', inventory: true });
        }
        await sleep(PLACE_EVERY_MS);
      }
    }));
    const reading = bystander.start();
    const logBefore = server.output().length;
    const cpuBefore = await serverTotal(server, cpuSeconds);
    const loadBefore = process.cpuUsage();
    const loadLoop = monitorEventLoopDelay({ resolution: 5 });
    loadLoop.enable();
    await sleep(SECONDS * 1000);
    loadLoop.disable();
    const cpuAfter = await serverTotal(server, cpuSeconds);
    const load = process.cpuUsage(loadBefore);
    const walked = Date.now();
    const shed = shedIn(server.output().slice(logBefore));
    measuringPoses = false;
    stepping = false;
    walking = false;
    // The walkers stop where they are, as a player letting go of the keys: one stop each.
    for (const walker of walkers) walker.headless.pose = { ...walker.headless.pose, moving: false };
    figures.rest = await reading;
    await placing;
    // Blocks still on their way get 5 s more before they count as missed.
    await sleep(5000);
    measuring = false;
    // Read once nothing is measured (see serverTotal); the heap the walk grew is still held.
    const loadedPss = await serverTotal(server, pssMb);
    // Heard while walking: from the start of the walk to its end.
    const ran = walked - began;
    for (let i = 0; build && i < count; i++) {
      for (let k = 0; k < count; k++) {
        if (k === i) continue;
        const pair = i * count + k;
        figures.heardRate.push((heardCount[pair]! * 1000) / ran);
        figures.heardGap.push(Math.max(heardGap[pair]!, walked - (heardLast[pair] || began)));
      }
    }
    for (const [key, at] of placedAt) {
      if (refused.has(key)) continue; // the server refused it: not a block anyone should see
      figures.blocksPlaced++;
      for (const [i, seenHere] of blocksSeen) {
        const seen = seenHere.get(key);
        if (seen === undefined) {
          if (!walkers[i]!.headless.tiles.has(key)) figures.blocksMissed++;
        } else figures.blockLatency.push(seen - at);
      }
    }
    const cpuCores = (cpuAfter - cpuBefore) / SECONDS;
    printRow({
      bench: 'crowd',
      case: name,
      players: count,
      seconds: SECONDS,
      joined_s: round(joinedSeconds, 1),
      pinned,
      pose_p50_ms: figures.poseLatency.percentile(50),
      pose_p99_ms: figures.poseLatency.percentile(99),
      heard_per_s_p10: round(percentile(figures.heardRate, 10), 2),
      heard_per_s_p50: round(percentile(figures.heardRate, 50), 2),
      heard_gap_p99_ms: Math.round(percentile(figures.heardGap, 99)),
      direction_heard_p99_ms: figures.directionHeard.percentile(99),
      blocks_placed: figures.blocksPlaced,
      block_p99_ms: Math.round(percentile(figures.blockLatency, 99)),
      blocks_missed: figures.blocksMissed,
      rest_p99_ms: round(percentile(figures.rest, 99), 1),
      server_cpu_cores: round(cpuCores, 2),
      load_cpu_cores: round((load.user + load.system) / 1e6 / SECONDS, 2),
      // How late the load's own event loop ran: what it adds to the latencies it measures.
      load_loop_delay_p99_ms: round(loadLoop.percentile(99) / 1e6, 1),
      load_loop_delay_max_ms: round(loadLoop.max / 1e6, 1),
      server_pss_mb: Math.round(loadedPss),
      server_idle_pss_mb: Math.round(idlePss),
      disconnects: figures.disconnects,
      // Broadcasts that sockets behind shed while the crowd walked (the server logs them): 0 means it never started to shed.
      shed_broadcasts: shed,
    });
  } finally {
    measuring = false;
    await inBatches(walkers.filter(Boolean), 16, (walker) => walker.headless.session.close().catch(() => undefined));
    await server.stop();
    await removeDataDir(dataDir);
  }
}

/** The broadcasts the server logged as shed in `log` (server/realtime/index.ts). */
function shedIn(log: string): number {
  let total = 0;
  for (const match of log.matchAll(/realtime: shed (\d+) broadcasts/g)) total += Number(match[1]);
  return total;
}

/** A land tile outside spawn within 4 tiles of `pose` that no block was placed on yet. */
function freeTileNear(pose: { x: number; y: number }, used: Set<string>): { x: number; y: number } | null {
  const cx = tileOfPixel(pose.x);
  const cy = tileOfPixel(pose.y);
  for (let tries = 0; tries < 40; tries++) {
    const x = cx + Math.floor(Math.random() * 9) - 4;
    const y = cy + Math.floor(Math.random() * 9) - 4;
    const key = `${x},${y}`;
    if ((Math.abs(x) <= SPAWN_RADIUS && Math.abs(y) <= SPAWN_RADIUS) || used.has(key) || isWaterTile(x, y, WORLD_SEED)) continue;
    used.add(key);
    return { x, y };
  }
  return null;
}

printHeader('crowd', { warmups: 0, runs: 1, seconds: SECONDS, crowd: CROWD, spread: SPREAD });

// The crowd: everyone inside the 800x600 screen centred on spawn.
const screen = { left: -380, top: -280, right: 380, bottom: 280 };
await runCase(
  'crowd',
  CROWD,
  () => ({ x: Math.round(screen.left + Math.random() * (screen.right - screen.left)), y: Math.round(screen.top + Math.random() * (screen.bottom - screen.top)) }),
  () => screen,
  true,
);

// The spread: a square grid of players, each in a box of its own far from the others.
const side = Math.ceil(Math.sqrt(SPREAD));
// Cells are three regions apart and centred on regions (protocol/geometry.ts), so a walker stays in its own.
const cell = (i: number) => ({ cx: ((i % side) - Math.floor(side / 2)) * SPREAD_GAP_PX, cy: (Math.floor(i / side) - Math.floor(side / 2)) * SPREAD_GAP_PX });
await runCase(
  'spread',
  SPREAD,
  (i) => ({ x: Math.round(cell(i).cx), y: Math.round(cell(i).cy) }),
  (i) => ({ left: cell(i).cx - 300, top: cell(i).cy - 200, right: cell(i).cx + 300, bottom: cell(i).cy + 200 }),
  false,
);
