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
 * - "step" and "shedding": players added in steps in three shapes (bench/capacity-steps.ts) until
 *   a goal breaks, each step's figures, and per shape the first step past a goal.
 * - "degradation": the screen at twice its shedding point: what the server shed, by kind, and
 *   whether anyone was disconnected or missed a block.
 * - "storm": 1,000 players signing in and entering within 10 s (bench/capacity-storm.ts).
 * - "heartbeat": what one presence heartbeat costs the database, alone, and each trigger's share
 *   (bench/capacity-heartbeat.ts). Not among the defaults: `--case=heartbeat`.
 *
 * `--quick` runs smaller, shorter cases, once (full runs take medians of 3);
 * `--case=load,calibration,step,degradation,storm,heartbeat` picks cases, `--shape=screen,spread,mixed` the
 * ramps' shapes, `--steps=250,500` their steps (the same for every shape); `--degradation-players N` sets the
 * degradation case's crowd when the step case does not run before it; `--database-core=1` puts
 * PostgreSQL on the load's core instead of the server's (bench/capacity-support.ts).
 */
import WebSocket from 'ws';
import { createTestWallet, makeDataDir, removeDataDir, signInPlayer, type TestServer } from '../test/support/harness.js';
import { startHeadlessPlayer, type HeadlessPlayer } from '../test/support/headless-player.js';
import type { BotPlan } from '../test/support/load/bot.js';
import { Fleet, freeTileNear, loopbackAddress } from '../test/support/load/fleet.js';
import { createBotKeys, signInBot, type BotIdentity } from '../test/support/load/sign-in.js';
import { stepWalker, type Box, type Walking } from '../test/support/load/walker.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { DATABASE_CORE, inBatches, meterLoad, pinnedServer, prioritise, serverCpu, spreadPlan, type LoadMeter } from './capacity-support.js';
import { seedPresence } from './seed.js';
import { runRamp, brokenGoals, type Shape, type StepFigures } from './capacity-steps.js';
import { runHeartbeats, type HeartbeatFigures } from './capacity-heartbeat.js';
import { runStorm } from './capacity-storm.js';
import { median, pick, printHeader, printRow, round } from './stats.js';

const CASES = (process.argv.find((arg) => arg.startsWith('--case='))?.slice('--case='.length) ?? 'load,calibration,step,degradation,storm').split(',');
/** Bots added per ramp step, the most tried, and the seconds each step is measured. */
const RAMP_STEP = pick(500, 250);
const RAMP_MAX = pick(3000, 1000);
const RAMP_HOLD_S = pick(10, 5);
/** Players entering per second: each entry is a score of joins, each asked of the database's policies (half bench:crowd's rate: the load case brings thousands). */
const ARRIVALS_PER_SECOND = 25;
/** The loop delay a load core may show and still count as driving its bots. */
const LOOP_P99_LIMIT_MS = 50;
const CALIBRATION_PLAYERS = 200;
const CALIBRATION_SECONDS = pick(20, 10);
const WALK_WARMUP_MS = 2000;
const SCREEN: Box = { left: -380, top: -280, right: 380, bottom: 280 };

/** The load case's plan for bot `index`: spread in groups (capacity-support.ts). */
function loadPlan(index: number, total: number): BotPlan {
  return spreadPlan(index, total, `Load${String(index).padStart(5, '0')}`);
}

/** One ramp step's figures. */
interface RampStep extends LoadMeter {
  bots: number;
  ready: number;
  server_cpu_cores: number;
  pose_p99_ms: number;
}

/** Adds bots `from`..`to`-1 at ARRIVALS_PER_SECOND, each walking once it is in. */
async function arrive(fleet: Fleet, identities: BotIdentity[], from: number, to: number, total: number): Promise<void> {
  const adding: Promise<unknown>[] = [];
  for (let index = from; index < to; index++) {
    adding.push(fleet.add(identities[index]!, loadPlan(index, total)).then((bot) => (bot.walkFrom = Date.now() + Math.random() * 1000)).catch(() => undefined));
    await sleep(1000 / ARRIVALS_PER_SECOND);
  }
  await Promise.all(adding);
}

/** Measures the fleet walking for RAMP_HOLD_S seconds. */
async function measureStep(fleet: Fleet, server: TestServer): Promise<RampStep> {
  const cpuBefore = await serverCpu(server);
  const poseBefore = fleet.figures.poseLatency.total;
  const meter = meterLoad();
  await sleep(RAMP_HOLD_S * 1000);
  const load = meter.stop(RAMP_HOLD_S);
  const cpuAfter = await serverCpu(server);
  return {
    bots: fleet.bots.length,
    ready: fleet.bots.filter((bot) => bot.ready()).length,
    ...load,
    server_cpu_cores: round((cpuAfter.all - cpuBefore.all) / RAMP_HOLD_S, 2),
    pose_p99_ms: fleet.figures.poseLatency.total > poseBefore ? fleet.figures.poseLatency.percentile(99) : NaN,
  };
}

/** The load case: see the module comment. */
async function runLoad(): Promise<void> {
  const keys = createBotKeys(RAMP_MAX);
  const dataDir = await makeDataDir();
  await seedPresence(dataDir, keys.map((key, i) => ({ address: key.address, name: loadPlan(i, RAMP_MAX).name, ...loadPlan(i, RAMP_MAX).start })));
  const { server, pinned } = await pinnedServer(dataDir);
  const prioritised = prioritise();
  const fleet = new Fleet(server.url, server.anonKey, RAMP_MAX);
  const steps: RampStep[] = [];
  try {
    const signing = Date.now();
    const identities = await inBatches(keys, 16, (key, i) => signInBot(server, key, loopbackAddress(i)));
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
  const identities = await inBatches(keys, 16, (key, i) => signInBot(server, key, loopbackAddress(i)));
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

/** `--name N` as a number, or null. */
function numberArgument(name: string): number | null {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : null;
}

/** Runs of each ramp whose medians are printed. */
const STEP_RUNS = pick(3, 1);
/** Players at each step of each shape's ramp. */
const CHOSEN_STEPS = process.argv.find((arg) => arg.startsWith('--steps='))?.slice('--steps='.length).split(',').map(Number);
const STEPS: Record<Shape, number[]> = {
  screen: CHOSEN_STEPS ?? pick([100, 200, 300, 400, 500, 600, 700, 800, 1000], [100, 200, 300, 400, 500, 600]),
  spread: CHOSEN_STEPS ?? pick([250, 500, 750, 1000, 1500, 2000, 2500, 3000], [250, 500, 1000, 1500, 2000]),
  mixed: CHOSEN_STEPS ?? pick([200, 400, 600, 800, 1000, 1500, 2000], [200, 400, 800, 1200, 1600]),
};
const STEP_HOLD_S = pick(20, 8);
/** The shapes ramped (`--shape=screen,spread,mixed`). */
const SHAPES = (process.argv.find((arg) => arg.startsWith('--shape='))?.slice('--shape='.length) ?? 'screen,spread,mixed').split(',') as Shape[];
/** Arrivals per second in the ramps: bench:crowd's rate (each bot comes from an address of its own, so their joins are checked side by side). */
const STEP_ARRIVALS_PER_SECOND = 50;
/** Players of the storm (`--storm-players N`; 1,000 by default). */
const STORM_PLAYERS = numberArgument('--storm-players') ?? 1000;
const STORM_ARRIVAL_S = 10;
const STORM_WAIT_S = 120;

/** The median of each numeric figure over `runs` of one step (the runs that reached it), with the goals judged again on the medians. */
function medianStep(shape: Shape, runs: StepFigures[]): StepFigures & { runs: number } {
  const pickMedian = (field: keyof StepFigures) => median(runs.map((run) => run[field] as number));
  const numeric = Object.fromEntries(Object.keys(runs[0]!).filter((key) => typeof runs[0]![key as keyof StepFigures] === 'number').map((key) => [key, pickMedian(key as keyof StepFigures)]));
  const refusals: Record<string, number> = {};
  for (const run of runs) for (const [kind, count] of Object.entries(run.refusals)) refusals[kind] = (refusals[kind] ?? 0) + count;
  const figures = {
    ...(numeric as unknown as StepFigures),
    shed_by_kind: { near: median(runs.map((run) => run.shed_by_kind.near)), far: median(runs.map((run) => run.shed_by_kind.far)) },
    refusals,
  };
  const broken = brokenGoals(shape, figures);
  return { ...figures, goals_met: broken.length === 0, goals_broken: broken, runs: runs.length };
}

/** The step and shedding cases; returns each shape's shedding point (null where no goal broke). */
async function runSteps(): Promise<Partial<Record<Shape, number | null>>> {
  const shedding: Partial<Record<Shape, number | null>> = {};
  for (const shape of SHAPES) {
    const byPlayers = new Map<number, StepFigures[]>();
    for (let run = 0; run < STEP_RUNS; run++) {
      const steps = await runRamp({
        shape, steps: STEPS[shape], holdSeconds: STEP_HOLD_S, arrivalsPerSecond: STEP_ARRIVALS_PER_SECOND, stopAtBreak: true,
        // Progress on stderr: a ramp takes minutes, and stdout stays the JSON lines.
        onStep: (figures) => console.error(`capacity ${shape} run ${run + 1}: ${JSON.stringify(figures)}`),
      });
      for (const step of steps) byPlayers.set(step.players, [...(byPlayers.get(step.players) ?? []), step]);
    }
    let first: (StepFigures & { runs: number }) | null = null;
    let lastGood: number | null = null;
    for (const players of [...byPlayers.keys()].sort((a, b) => a - b)) {
      const step = medianStep(shape, byPlayers.get(players)!);
      printRow({ bench: 'capacity', case: 'step', shape, seconds: STEP_HOLD_S, ...step });
      if (!step.goals_met) first ??= step;
      else if (!first) lastGood = players;
    }
    printRow({
      bench: 'capacity', case: 'shedding', shape, players: first?.players ?? null, goal_broken: first?.goals_broken.join(', ') ?? null,
      last_step_within_goals: lastGood, server_cpu_ms_per_player_s: first?.server_cpu_ms_per_player_s ?? null, tried_up_to: STEPS[shape].at(-1),
    });
    shedding[shape] = first?.players ?? null;
  }
  return shedding;
}

/** The degradation case: the screen at `players` (twice its shedding point), one step. */
async function runDegradation(players: number): Promise<void> {
  const [step] = await runRamp({
    shape: 'screen', steps: [players], holdSeconds: STEP_HOLD_S, arrivalsPerSecond: STEP_ARRIVALS_PER_SECOND, stopAtBreak: false,
    onStep: (figures) => console.error(`capacity degradation: ${JSON.stringify(figures)}`),
  });
  const { shed_broadcasts, shed_by_kind, disconnects, blocks_placed, blocks_missed, block_p99_ms, pose_p50_ms, pose_p99_ms, heard_per_s_p10, server_cpu_cores, loop_delay_p99_ms, in_world, refusals } = step!;
  printRow({
    bench: 'capacity', case: 'degradation', shape: 'screen', players, seconds: STEP_HOLD_S, in_world, shed_broadcasts, shed_by_kind, disconnects, blocks_placed, blocks_missed, block_p99_ms,
    pose_p50_ms, pose_p99_ms, heard_per_s_p10, server_cpu_cores, loop_delay_p99_ms, refusals,
  });
}

/** The storm case: medians of the runs. */
async function runStorms(): Promise<void> {
  const runs = [];
  for (let run = 0; run < STEP_RUNS; run++) {
    runs.push(await runStorm(STORM_PLAYERS, 'spread', STORM_ARRIVAL_S, STORM_WAIT_S));
    console.error(`capacity storm run ${run + 1}: ${JSON.stringify(runs.at(-1))}`);
  }
  const allIn = runs.map((run) => run.all_in_s ?? Infinity);
  const middle = runs[allIn.indexOf(median(allIn))]!;
  printRow({ bench: 'capacity', case: 'storm', ...middle, all_in_s: Number.isFinite(median(allIn)) ? median(allIn) : null, refused: median(runs.map((run) => run.refused)), runs: runs.length });
}


printHeader('capacity', {
  warmups: 0, runs: STEP_RUNS, cases: CASES, ramp_step: RAMP_STEP, ramp_max: RAMP_MAX, hold_s: RAMP_HOLD_S, calibration_players: CALIBRATION_PLAYERS,
  steps: STEPS, step_hold_s: STEP_HOLD_S, storm_players: STORM_PLAYERS, database_core: DATABASE_CORE,
});
if (CASES.includes('load')) await runLoad();
if (CASES.includes('calibration')) await runCalibration();
const shedding = CASES.includes('step') ? await runSteps() : null;
if (CASES.includes('degradation')) {
  const players = numberArgument('--degradation-players') ?? (shedding?.screen ? 2 * shedding.screen : null);
  if (players === null) printRow({ bench: 'capacity', case: 'degradation', skipped: 'no shedding point of the screen to double: run the step case before it or pass --degradation-players N' });
  else await runDegradation(players);
}
if (CASES.includes('storm')) await runStorms();
if (CASES.includes('heartbeat')) {
  const runs: HeartbeatFigures[] = [];
  for (let run = 0; run < STEP_RUNS; run++) runs.push(await runHeartbeats(pick(400, 200)));
  const middle = runs.find((run) => run.db_ms_p50 === median(runs.map((one) => one.db_ms_p50)))!;
  printRow({ bench: 'capacity', case: 'heartbeat', ...middle, runs: runs.length });
}
process.exit(0);
