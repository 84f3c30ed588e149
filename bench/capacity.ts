/**
 * Capacity figures, as JSON lines: how many players one load core drives with the protocol-level
 * bots (test/support/load/), and how closely those bots load the server compared with headless
 * players running the game's own net/ code. The server and its PostgreSQL are pinned to one core
 * and this process (the load) to the other, as in bench:crowd; the load case also raises the
 * load's priority where it may, so that its loop delay is its own bots' and not other work's.
 *
 * - "load": bots in groups of 8, each group walking in a 600x400 box of its own three regions from
 *   the next (each bot hears its group), added a step at a time; after each step the load's event
 *   loop delay and CPU are measured while they walk. Reports the most bots whose step kept the
 *   loop's p99 under 50 ms.
 * - "calibration": 200 players in one 800x600 screen around spawn (one in ten building every 3 s,
 *   one in twenty chatting every 30 s), driven once by headless players and once by bots, each on
 *   a server of its own: server CPU (Node and PostgreSQL) and bytes the server sent (websocket
 *   messages and REST answer bodies) per player, and their ratios bots / headless.
 *
 * - "crowd": 250 bots (`--players=N`) in one 800x600 screen around spawn (one in ten building every 3 s), walking
 *   for a measured span: pose p50/p99, how often each walker is heard by each other bot (its
 *   poses heard over the listeners, p10 of the walkers), block p99, the REST p99 of a bystander
 *   reading blocks around spawn in a process of its own (bench/bystander.ts), the server's CPU
 *   (its cores and its Node process's milliseconds per player-second) and disconnects, with
 *   `goals_met` against the crowd's goals.
 *
 * `--quick` runs smaller, shorter cases; `--case=load,calibration,crowd` picks cases (load and
 * calibration by default).
 */
import { spawn } from 'node:child_process';
import { cpus, setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { createTestWallet, makeDataDir, removeDataDir, signInPlayer, startTestServer, type TestServer } from '../test/support/harness.js';
import { startHeadlessPlayer, type HeadlessPlayer } from '../test/support/headless-player.js';
import type { BotPlan } from '../test/support/load/bot.js';
import { Fleet, freeTileNear } from '../test/support/load/fleet.js';
import { createBotKeys, signInBot, type BotIdentity } from '../test/support/load/sign-in.js';
import { stepWalker, type Box, type Walking } from '../test/support/load/walker.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { cpuSeconds, pin, serverPids } from './processes.js';
import { seedPresence } from './seed.js';
import { percentile, pick, printHeader, printRow, round } from './stats.js';

const CASES = (process.argv.find((arg) => arg.startsWith('--case='))?.slice('--case='.length) ?? 'load,calibration').split(',');
/** Bots added per ramp step, the most tried, and the seconds each step is measured. */
const RAMP_STEP = pick(500, 250);
const RAMP_MAX = pick(3000, 1000);
const RAMP_HOLD_S = pick(10, 5);
/** Players entering per second: each entry is a score of joins, each asked of the database's policies (half bench:crowd's rate: the load case brings thousands). */
const ARRIVALS_PER_SECOND = 25;
const GROUP = 8;
/** Pixels between two groups' centres: three regions, so no group hears another. */
const GROUP_GAP_PX = 3 * 1024;
/** The loop delay a load core may show and still count as driving its bots. */
const LOOP_P99_LIMIT_MS = 50;
const CALIBRATION_PLAYERS = 200;
const CALIBRATION_SECONDS = pick(20, 10);
const WALK_WARMUP_MS = 2000;
const SCREEN: Box = { left: -380, top: -280, right: 380, bottom: 280 };

/** Players in the crowd (`--players=N`; 250 by default). */
const CROWD_PLAYERS = Number(process.argv.find((arg) => arg.startsWith('--players='))?.slice('--players='.length) ?? 250);
const CROWD_SECONDS = pick(20, 10);
/** Crowd players entering per second (`--arrivals=N`): lower it on a busy machine, where the server answers fewer joins in time. */
const CROWD_ARRIVALS_PER_SECOND = Number(process.argv.find((arg) => arg.startsWith('--arrivals='))?.slice('--arrivals='.length) ?? ARRIVALS_PER_SECOND);
/** The crowd's goals: server cores, pose/block/REST p99 (ms), each walker heard this often (per s). */
const CROWD_GOALS = { server_cpu_cores: 0.45, pose_p99_ms: 100, block_p99_ms: 150, rest_p99_ms: 50, heard_per_s_p10: 1 };

/** CPU seconds of the server's Node process and of all its processes (PostgreSQL's too). */
async function serverCpu(server: TestServer): Promise<{ node: number; all: number }> {
  const pids = await serverPids(server);
  return { node: cpuSeconds(pids[0]!), all: pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) };
}

/**
 * Raises this process's priority (where allowed) so that on its core it runs before other work of
 * the machine: the load's loop delay then measures its own bots, not its neighbours. True if it could.
 */
function prioritise(): boolean {
  try {
    setPriority(process.pid, -10);
    return true;
  } catch {
    return false;
  }
}

/** Starts a server on `dataDir` pinned to core 0, with this process on core 1; `pinned` says whether it could. */
async function pinnedServer(dataDir: string, env: Record<string, string> = {}): Promise<{ server: TestServer; pinned: boolean }> {
  const server = await startTestServer(dataDir, env);
  const pinned = cpus().length >= 2 && (await serverPids(server)).every((pid) => pin(pid, '0')) && pin(process.pid, '1');
  return { server, pinned };
}

/** Runs `work` over `items`, at most `limit` at once. */
async function inBatches<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  }));
  return results;
}

/** The load case's plan for bot `index`: its group's box, a start inside it, one in ten building. */
function spreadPlan(index: number, total: number): BotPlan {
  const groups = Math.ceil(total / GROUP);
  const side = Math.ceil(Math.sqrt(groups));
  const group = Math.floor(index / GROUP);
  const cx = ((group % side) - Math.floor(side / 2)) * GROUP_GAP_PX;
  const cy = (Math.floor(group / side) - Math.floor(side / 2)) * GROUP_GAP_PX;
  const box = { left: cx - 300, top: cy - 200, right: cx + 300, bottom: cy + 200 };
  const start = { x: cx - 280 + (index % GROUP) * 70, y: cy };
  return { index, name: `Load${String(index).padStart(5, '0')}`, start, box, placeEveryMs: index % 10 === 0 ? 3000 : 0, chatEveryMs: 0 };
}

/** One ramp step's figures. */
interface RampStep {
  bots: number;
  ready: number;
  load_cpu_cores: number;
  load_loop_delay_p99_ms: number;
  server_cpu_cores: number;
  pose_p99_ms: number;
}

/** Adds bots `from`..`to`-1 at ARRIVALS_PER_SECOND, each walking once it is in. */
async function arrive(fleet: Fleet, identities: BotIdentity[], from: number, to: number, total: number): Promise<void> {
  const adding: Promise<unknown>[] = [];
  for (let index = from; index < to; index++) {
    adding.push(fleet.add(identities[index]!, spreadPlan(index, total)).then((bot) => (bot.walkFrom = Date.now() + Math.random() * 1000)).catch(() => undefined));
    await sleep(1000 / ARRIVALS_PER_SECOND);
  }
  await Promise.all(adding);
}

/** Measures the fleet walking for RAMP_HOLD_S seconds. */
async function measureStep(fleet: Fleet, server: TestServer): Promise<RampStep> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const cpuBefore = await serverCpu(server);
  const loadBefore = process.cpuUsage();
  const poseBefore = fleet.figures.poseLatency.total;
  loop.enable();
  await sleep(RAMP_HOLD_S * 1000);
  loop.disable();
  const load = process.cpuUsage(loadBefore);
  const cpuAfter = await serverCpu(server);
  return {
    bots: fleet.bots.length,
    ready: fleet.bots.filter((bot) => bot.ready()).length,
    load_cpu_cores: round((load.user + load.system) / 1e6 / RAMP_HOLD_S, 2),
    load_loop_delay_p99_ms: round(loop.percentile(99) / 1e6, 1),
    server_cpu_cores: round((cpuAfter.all - cpuBefore.all) / RAMP_HOLD_S, 2),
    pose_p99_ms: fleet.figures.poseLatency.total > poseBefore ? fleet.figures.poseLatency.percentile(99) : NaN,
  };
}

/** The load case: see the module comment. */
async function runLoad(): Promise<void> {
  const keys = createBotKeys(RAMP_MAX);
  const dataDir = await makeDataDir();
  await seedPresence(dataDir, keys.map((key, i) => ({ address: key.address, name: spreadPlan(i, RAMP_MAX).name, ...spreadPlan(i, RAMP_MAX).start })));
  const { server, pinned } = await pinnedServer(dataDir);
  const prioritised = prioritise();
  const fleet = new Fleet(server.url, server.anonKey, RAMP_MAX);
  const steps: RampStep[] = [];
  try {
    const signing = Date.now();
    const identities = await inBatches(keys, 16, (key) => signInBot(server, key));
    const signInSeconds = (Date.now() - signing) / 1000;
    fleet.figures.recording = true;
    for (let to = RAMP_STEP; to <= RAMP_MAX; to += RAMP_STEP) {
      await arrive(fleet, identities, fleet.bots.length, to, RAMP_MAX);
      await waitFor(() => fleet.bots.every((bot) => bot.ready()), { timeout: 30_000, interval: 250, message: 'every bot joined' }).catch(() => undefined);
      const step = await measureStep(fleet, server);
      steps.push(step);
      // Progress on stderr: a full ramp takes minutes, and stdout stays the JSON lines.
      console.error(`capacity: ${JSON.stringify(step)}`);
      if (step.load_loop_delay_p99_ms >= LOOP_P99_LIMIT_MS) break;
    }
    const best = steps.filter((step) => step.load_loop_delay_p99_ms < LOOP_P99_LIMIT_MS).at(-1);
    printRow({
      bench: 'capacity', case: 'load', bots: best?.bots ?? 0, load_cpu_cores: best?.load_cpu_cores ?? NaN, load_loop_delay_p99_ms: best?.load_loop_delay_p99_ms ?? NaN,
      // What a whole core would drive at that step's cost per bot: a ramp cut short by the server (or the machine) still tells it.
      bots_per_load_core: best ? Math.round(best.bots / best.load_cpu_cores) : NaN,
      pinned, prioritised, sign_in_s: round(signInSeconds, 1), steps, refusals: Object.fromEntries(fleet.figures.refusals), disconnects: fleet.figures.disconnects,
    });
  } finally {
    fleet.figures.recording = false;
    await fleet.stop();
    await server.stop();
    await removeDataDir(dataDir);
  }
}

/** The calibration scenario for player `index`: a start in the screen around spawn, building and chatting roles. */
function screenPlan(index: number): BotPlan {
  const start = { x: Math.round(SCREEN.left + Math.random() * (SCREEN.right - SCREEN.left)), y: Math.round(SCREEN.top + Math.random() * (SCREEN.bottom - SCREEN.top)) };
  return { index, name: `Calib${String(index).padStart(4, '0')}`, start, box: SCREEN, placeEveryMs: index % 10 === 0 ? 3000 : 0, chatEveryMs: index % 20 === 5 ? 30_000 : 0 };
}

/** What one calibration run measured, per player. */
interface Calibration {
  players: number;
  /** Refusals the driver saw (bots only: headless players report theirs in their logs). */
  refusals: Record<string, number>;
  cpuSeconds: number;
  nodeCpuSeconds: number;
  bytes: number;
  pinned: boolean;
}

/** Runs `drive` on a fresh server seeded with `plans`, measuring CPU and `bytes()` over the walk. */
async function calibrate(
  plans: BotPlan[],
  addresses: string[],
  drive: (server: TestServer) => Promise<{ walk(): void; bytes(): number; refusals(): Record<string, number>; record(on: boolean): void; stop(): Promise<void> }>,
): Promise<Calibration> {
  const dataDir = await makeDataDir();
  await seedPresence(dataDir, plans.map((plan, i) => ({ address: addresses[i]!, name: plan.name, ...plan.start })));
  const { server, pinned } = await pinnedServer(dataDir);
  try {
    const driver = await drive(server);
    try {
      driver.walk();
      await sleep(WALK_WARMUP_MS);
      driver.record(true);
      const before = await serverCpu(server);
      await sleep(CALIBRATION_SECONDS * 1000);
      const after = await serverCpu(server);
      driver.record(false);
      const players = plans.length;
      return { players, refusals: driver.refusals(), cpuSeconds: (after.all - before.all) / players, nodeCpuSeconds: (after.node - before.node) / players, bytes: driver.bytes() / players, pinned };
    } finally {
      await driver.stop();
    }
  } finally {
    await server.stop();
    await removeDataDir(dataDir);
  }
}

/** The headless side of the calibration: net/ players whose sockets and REST answers are counted. */
async function driveHeadless(server: TestServer, plans: BotPlan[], wallets: ReturnType<typeof createTestWallet>[]) {
  let bytes = 0;
  let recording = false;
  class CountingSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      // realtime-js reads binary frames as ArrayBuffers: byteLength counts either kind.
      this.on('message', (data: Buffer | ArrayBuffer) => {
        if (recording) bytes += data.byteLength;
      });
    }
  }
  const countingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (recording) bytes += Buffer.byteLength(await response.clone().text());
    return response;
  };
  const players = await inBatches(wallets, 8, (wallet) => signInPlayer(server, wallet, { fetch: countingFetch, transport: CountingSocket as typeof WebSocket }));
  const walkers: Array<{ headless: HeadlessPlayer; walking: Walking; from: number; plan: BotPlan; placed: number; chatted: number }> = [];
  let walking = false;
  const used = new Set<string>();
  for (const [i, player] of players.entries()) {
    const plan = plans[i]!;
    const walking0: Walking = { x: plan.start.x, y: plan.start.y, facing: 1, dx: 1, dy: 0, nextTurn: 0 };
    const entry = { headless: null as unknown as HeadlessPlayer, walking: walking0, from: Infinity, plan, placed: 0, chatted: 0 };
    entry.headless = await startHeadlessPlayer(server, player, {
      name: plan.name,
      pose: { x: plan.start.x, y: plan.start.y, facing: 1, moving: false },
      onStep() {
        const now = Date.now();
        if (!walking || now < entry.from) return;
        stepWalker(entry.walking, plan.box, now);
        entry.headless.pose = { x: entry.walking.x, y: entry.walking.y, facing: entry.walking.facing, moving: true };
        headlessActions(entry, now, used);
      },
    });
    walkers.push(entry);
    await sleep(1000 / ARRIVALS_PER_SECOND);
  }
  await waitFor(() => walkers.every(({ headless }) => headless.session.poseTopics().length === 9 && headless.player.client.getChannels().every((channel) => channel.state === 'joined')), { timeout: 120_000, interval: 250, message: 'every headless player joined' });
  return {
    walk() {
      const now = Date.now();
      for (const entry of walkers) {
        entry.from = now + Math.random() * 1000;
        entry.placed = entry.chatted = entry.from;
      }
      walking = true;
    },
    bytes: () => bytes,
    refusals: () => ({}),
    record(on: boolean) {
      recording = on;
    },
    async stop() {
      walking = false;
      await inBatches(walkers, 16, ({ headless }) => headless.session.close().catch(() => undefined));
    },
  };
}

/** A headless player's building and chat, on the same beats as a bot's (test/support/load/bot.ts). */
function headlessActions(entry: { headless: HeadlessPlayer; plan: BotPlan; placed: number; chatted: number }, now: number, used: Set<string>): void {
  const { plan, headless } = entry;
  if (plan.placeEveryMs > 0 && now >= entry.placed + plan.placeEveryMs) {
    entry.placed = now;
    const tile = freeTileNear(used, headless.pose.x, headless.pose.y);
    if (tile) headless.queues.outbox.push({ kind: 'placeBlock', x: tile.x, y: tile.y, blockType: 'stone', inventory: true });
  }
  if (plan.chatEveryMs > 0 && now >= entry.chatted + plan.chatEveryMs) {
    entry.chatted = now;
    void headless.session.sendChat(`hello from ${plan.name}`);
  }
}

/** The bot side of the calibration. */
async function driveBots(server: TestServer, plans: BotPlan[], keys: ReturnType<typeof createBotKeys>) {
  const fleet = new Fleet(server.url, server.anonKey, plans.length);
  const identities = await inBatches(keys, 16, (key) => signInBot(server, key));
  for (const [i, identity] of identities.entries()) {
    void fleet.add(identity, plans[i]!);
    await sleep(1000 / ARRIVALS_PER_SECOND);
  }
  await waitFor(() => fleet.bots.length === plans.length && fleet.bots.every((bot) => bot.ready()), { timeout: 120_000, interval: 250, message: 'every bot joined' });
  return {
    walk: () => fleet.walk(1000),
    bytes: () => fleet.figures.bytes,
    refusals: () => Object.fromEntries(fleet.figures.refusals),
    record(on: boolean) {
      fleet.figures.recording = on;
    },
    stop: () => fleet.stop(),
  };
}

/** The calibration case: see the module comment. */
async function runCalibration(): Promise<void> {
  const plans = Array.from({ length: CALIBRATION_PLAYERS }, (_, i) => screenPlan(i));
  const wallets = plans.map(() => createTestWallet());
  const headless = await calibrate(plans, wallets.map((wallet) => wallet.address), (server) => driveHeadless(server, plans, wallets));
  const keys = createBotKeys(plans.length);
  const bots = await calibrate(plans, keys.map((key) => key.address), (server) => driveBots(server, plans, keys));
  printRow({
    bench: 'capacity', case: 'calibration', players: plans.length, scenario: 'one screen', seconds: CALIBRATION_SECONDS,
    cpu_ratio: round(bots.cpuSeconds / headless.cpuSeconds, 2), bytes_ratio: round(bots.bytes / headless.bytes, 2),
    node_cpu_ratio: round(bots.nodeCpuSeconds / headless.nodeCpuSeconds, 2),
    headless: { cpu_s_per_player: round(headless.cpuSeconds, 4), bytes_per_player: Math.round(headless.bytes) },
    bots: { cpu_s_per_player: round(bots.cpuSeconds, 4), bytes_per_player: Math.round(bots.bytes), refusals: bots.refusals },
    pinned: headless.pinned && bots.pinned,
  });
}

/** A bystander in a process of its own on the load's core, signed in; `start` runs its reads for `seconds` and resolves to their round trips (ms). */
async function startBystander(server: TestServer, seconds: number): Promise<{ start(): Promise<number[]> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bystander.ts', server.url, server.anonKey, String(seconds)], { stdio: ['pipe', 'pipe', 'inherit'] });
  pin(child.pid!, '1');
  let output = '';
  const exited = new Promise<number[]>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output.slice(output.indexOf('\n') + 1)) as number[]) : reject(new Error(`bystander exited with ${code}`)))),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.startsWith('ready\n')) resolve();
    });
    exited.catch(reject);
  });
  return {
    start() {
      child.stdin!.end('go\n');
      return exited;
    },
  };
}

/** The crowd case: see the module comment. */
async function runCrowd(): Promise<void> {
  const plans = Array.from({ length: CROWD_PLAYERS }, (_, i) => ({ ...screenPlan(i), name: `Crowd${String(i).padStart(4, '0')}`, chatEveryMs: 0 }));
  const keys = createBotKeys(plans.length);
  const dataDir = await makeDataDir();
  await seedPresence(dataDir, plans.map((plan, i) => ({ address: keys[i]!.address, name: plan.name, ...plan.start })));
  // Each bot's socket comes from an address of its own, through the load as a trusted proxy: the server bounds its policy checks per address.
  const { server, pinned } = await pinnedServer(dataDir, { TRUSTED_PROXIES: '127.0.0.1' });
  const prioritised = prioritise();
  const fleet = new Fleet(server.url, server.anonKey, plans.length, undefined, true);
  try {
    const identities = await inBatches(keys, 16, (key) => signInBot(server, key));
    for (const [i, identity] of identities.entries()) {
      void fleet.add(identity, plans[i]!);
      await sleep(1000 / CROWD_ARRIVALS_PER_SECOND);
    }
    // On a busy machine the server may not answer every join in time: the crowd is measured with those in, and `ready` says how many.
    await waitFor(() => fleet.bots.length === plans.length && fleet.bots.every((bot) => bot.ready()), { timeout: 180_000, interval: 250 }).catch(() => undefined);
    const ready = fleet.bots.filter((bot) => bot.ready()).length;
    const bystander = await startBystander(server, CROWD_SECONDS);
    fleet.walk(1000);
    await sleep(WALK_WARMUP_MS);
    const pid = server.child.pid!;
    const reading = bystander.start();
    fleet.figures.recording = true;
    // Progress on stderr (stdout stays the JSON lines): what a profiler started beside the run waits for.
    console.error(`capacity: crowd measuring, server pid ${pid}`);
    const before = { node: cpuSeconds(pid), all: (await serverCpu(server)).all, at: performance.now() };
    await sleep(CROWD_SECONDS * 1000);
    const after = { node: cpuSeconds(pid), all: (await serverCpu(server)).all, at: performance.now() };
    console.error('capacity: crowd measured');
    fleet.figures.recording = false;
    const rest = await reading;
    const seconds = (after.at - before.at) / 1000;
    const figures = fleet.figures;
    const heard = Array.from(figures.heard, (count) => count / (plans.length - 1) / seconds);
    const row = {
      pose_p50_ms: figures.poseLatency.percentile(50),
      pose_p99_ms: figures.poseLatency.percentile(99),
      heard_per_s_p10: round(percentile(heard, 10), 2),
      block_p99_ms: figures.blockLatency.percentile(99),
      rest_p99_ms: round(percentile(rest, 99), 1),
      server_cpu_cores: round((after.all - before.all) / seconds, 2),
      server_node_cpu_cores: round((after.node - before.node) / seconds, 2),
      server_cpu_ms_per_player_s: round(((after.node - before.node) * 1000) / seconds / plans.length, 3),
    };
    const goalsMet = row.server_cpu_cores <= CROWD_GOALS.server_cpu_cores && row.pose_p99_ms <= CROWD_GOALS.pose_p99_ms && row.block_p99_ms <= CROWD_GOALS.block_p99_ms
      && row.rest_p99_ms <= CROWD_GOALS.rest_p99_ms && row.heard_per_s_p10 >= CROWD_GOALS.heard_per_s_p10 && figures.disconnects === 0 && ready === plans.length;
    printRow({
      bench: 'capacity', case: 'crowd', shape: 'screen', players: plans.length, ready, seconds: round(seconds, 1), ...row,
      poses_sent: figures.posesSent, placements: figures.placements, disconnects: figures.disconnects, refusals: Object.fromEntries(figures.refusals),
      goals_met: goalsMet, pinned, prioritised,
    });
  } finally {
    fleet.figures.recording = false;
    await fleet.stop();
    await server.stop();
    await removeDataDir(dataDir);
  }
}

printHeader('capacity', { warmups: 0, runs: 1, cases: CASES, ramp_step: RAMP_STEP, ramp_max: RAMP_MAX, hold_s: RAMP_HOLD_S, calibration_players: CALIBRATION_PLAYERS });
if (CASES.includes('load')) await runLoad();
if (CASES.includes('calibration')) await runCalibration();
if (CASES.includes('crowd')) await runCrowd();
process.exit(0);
