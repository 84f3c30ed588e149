/**
 * bench:capacity's ramps: players added in steps in one of three shapes until a goal breaks, each
 * step measured on a server pinned to one core (its PostgreSQL with it; the load, the bystander
 * and this process on the other), and the shedding point named. Bots come from source addresses
 * of their own (loopbackAddress in test/support/load/fleet.ts), as players from their own machines.
 *
 * Shapes: `screen`, every player in the 760x560 screen around spawn; `spread`, groups of 8 each
 * walking in a 600x400 box three regions from the next; `mixed`, one player in four in the screen
 * around spawn and the others spread. One in ten builds every 3 s, one in twenty chats every 30 s.
 */
import { REGION_PX } from '../protocol/geometry.js';
import { makeDataDir, removeDataDir, type TestServer } from '../test/support/harness.js';
import type { BotPlan } from '../test/support/load/bot.js';
import { Fleet, loopbackAddress } from '../test/support/load/fleet.js';
import { createBotKeys, signInBot, type BotIdentity } from '../test/support/load/sign-in.js';
import type { Box } from '../test/support/load/walker.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { startBystander } from './bystander-process.js';
import { inBatches, meterLoad, pinnedServer, scrape, serverCpu, serverPss, type LoadMeter, type Scrape } from './capacity-support.js';
import { coreTicks } from './processes.js';
import { seedPresence } from './seed.js';
import { percentile, round } from './stats.js';

/** How players stand in the world. */
export type Shape = 'screen' | 'spread' | 'mixed';

/** The goals of one node (issue figures): pose p99 and how often each walker is heard in a screen, a bystander's REST p99. */
export const GOALS = { poseP99Ms: 100, heardPerS: 1, restP99Ms: 50 } as const;

const SCREEN: Box = { left: -380, top: -280, right: 380, bottom: 280 };
const GROUP = 8;
/** Pixels between two groups' centres: three regions, so no group hears another (nor the screen at spawn: the first row is three regions away). */
const GROUP_GAP_PX = 3 * REGION_PX;
/** After the measured seconds, how long blocks placed in them may take to be heard before they count as missed. */
const BLOCK_GRACE_MS = 2000;

/** A bot's plan and its group: the bots that hear it (0: the screen at spawn). */
interface Placement {
  plan: BotPlan;
  group: number;
}

/** Bot `index` of a ramp of at most `max` bots in `shape`. */
export function placement(shape: Shape, index: number, max: number): Placement {
  const roles = { placeEveryMs: index % 10 === 0 ? 3000 : 0, chatEveryMs: index % 20 === 5 ? 30_000 : 0 };
  const name = `Cap${String(index).padStart(5, '0')}`;
  if (shape === 'screen' || (shape === 'mixed' && index % 4 === 0)) {
    // Spread over the screen by a fixed pattern, so every run of a step starts the same.
    const start = { x: SCREEN.left + ((index * 7919) % (SCREEN.right - SCREEN.left)), y: SCREEN.top + ((index * 104_729) % (SCREEN.bottom - SCREEN.top)) };
    return { plan: { index, name, start, box: SCREEN, ...roles }, group: 0 };
  }
  const group = Math.floor(index / GROUP);
  const side = Math.ceil(Math.sqrt(Math.ceil(max / GROUP)));
  const cx = ((group % side) - Math.floor(side / 2)) * GROUP_GAP_PX;
  const cy = (Math.floor(group / side) + 1) * GROUP_GAP_PX;
  const box = { left: cx - 300, top: cy - 200, right: cx + 300, bottom: cy + 200 };
  return { plan: { index, name, start: { x: cx - 280 + (index % GROUP) * 70, y: cy }, box, ...roles }, group: group + 1 };
}

/** One step's figures, as printed (the names); the load's own (the bots; the bystander runs apart) from LoadMeter. */
export interface StepFigures extends LoadMeter {
  players: number;
  in_world: number;
  pose_p50_ms: number;
  pose_p99_ms: number;
  heard_per_s_p10: number;
  block_p99_ms: number;
  blocks_placed: number;
  blocks_missed: number;
  rest_p99_ms: number;
  server_cpu_cores: number;
  server_cpu_ms_per_player_s: number;
  /** The Node process's share of server_cpu_cores (the rest is PostgreSQL's). */
  server_node_cpu_cores: number;
  server_pss_mb: number;
  loop_delay_p99_ms: number;
  /** How busy the load's core (core 1) was, all its processes together, 0-1. */
  load_core_busy: number;
  shed_broadcasts: number;
  /** REST statement shapes prepared on the server's connections since it started (server/db/prepared.ts): about shapes x connections. */
  db_statements_prepared: number;
  shed_by_kind: { near: number; far: number };
  disconnects: number;
  refusals: Record<string, number>;
  goals_met: boolean;
  /** The goals this step broke, by name. */
  goals_broken: string[];
}

/** The goals `figures` of `shape` break: the screen's pose and hearing, the spread's REST, both for the mix; every player in and none disconnected for all. */
export function brokenGoals(shape: Shape, figures: Omit<StepFigures, 'goals_met' | 'goals_broken'>): string[] {
  const broken: string[] = [];
  if (shape !== 'spread') {
    if (!(figures.pose_p99_ms <= GOALS.poseP99Ms)) broken.push(`pose_p99_ms<=${GOALS.poseP99Ms}`);
    if (!(figures.heard_per_s_p10 >= GOALS.heardPerS)) broken.push(`heard_per_s_p10>=${GOALS.heardPerS}`);
  }
  if (shape !== 'screen' && !(figures.rest_p99_ms <= GOALS.restP99Ms)) broken.push(`rest_p99_ms<=${GOALS.restP99Ms}`);
  if (figures.in_world < figures.players) broken.push('every player in the world');
  if (figures.disconnects > 0) broken.push('no disconnects');
  return broken;
}

/** What one ramp runs with. */
export interface RampOptions {
  shape: Shape;
  /** Players at each step, rising. */
  steps: number[];
  holdSeconds: number;
  arrivalsPerSecond: number;
  /** Stop after the first step that breaks a goal. */
  stopAtBreak: boolean;
  /** Called with each step's figures as soon as it is measured. */
  onStep(figures: StepFigures): void;
}

/** The sum of a metric's samples over its labels (`name{...} value` and `name value`), those with `label` only when given. */
function counterTotal(samples: Scrape, name: string, label?: string): number {
  let total = 0;
  for (const [key, value] of samples) {
    if (key === name || (key.startsWith(`${name}{`) && (label === undefined || key.includes(label)))) total += value;
  }
  return total;
}

/** Runs one ramp on a fresh server; returns its steps' figures. */
export async function runRamp(options: RampOptions): Promise<StepFigures[]> {
  const max = options.steps.at(-1)!;
  const placements = Array.from({ length: max }, (_, i) => placement(options.shape, i, max));
  const keys = createBotKeys(max);
  const dataDir = await makeDataDir();
  await seedPresence(dataDir, placements.map(({ plan }, i) => ({ address: keys[i]!.address, name: plan.name, ...plan.start })));
  const { server } = await pinnedServer(dataDir);
  const fleet = new Fleet(server.url, server.anonKey, max);
  const results: StepFigures[] = [];
  try {
    const identities = await inBatches(keys, 16, (key, i) => signInBot(server, key, loopbackAddress(i)));
    for (const players of options.steps) {
      await arrive(fleet, identities, placements, players, options.arrivalsPerSecond);
      await waitFor(() => fleet.bots.every((bot) => bot.ready()), { timeout: 60_000, interval: 250, message: 'every bot joined' }).catch(() => undefined);
      const figures = await measureStep(options.shape, fleet, server, placements, options.holdSeconds);
      results.push(figures);
      options.onStep(figures);
      if (options.stopAtBreak && !figures.goals_met) break;
    }
  } finally {
    fleet.figures.recording = false;
    await fleet.stop();
    await server.stop();
    await removeDataDir(dataDir);
  }
  return results;
}

/** Adds bots until the fleet holds `players`, `perSecond` a second, each walking from a moment of its own within a second of entering. */
async function arrive(fleet: Fleet, identities: BotIdentity[], placements: Placement[], players: number, perSecond: number): Promise<void> {
  const adding: Promise<unknown>[] = [];
  for (let index = fleet.bots.length; index < players; index++) {
    adding.push(fleet.add(identities[index]!, placements[index]!.plan).then((bot) => (bot.walkFrom = Date.now() + Math.random() * 1000)).catch(() => undefined));
    await sleep(1000 / perSecond);
  }
  await Promise.all(adding);
}

/** How often each walker was heard by each bot of its group, per second, over `seconds`. */
function heardRates(fleet: Fleet, placements: Placement[], seconds: number): number[] {
  const groupSizes = new Map<number, number>();
  for (const bot of fleet.bots) {
    const group = placements[bot.plan.index]!.group;
    groupSizes.set(group, (groupSizes.get(group) ?? 0) + 1);
  }
  const rates: number[] = [];
  for (const bot of fleet.bots) {
    const hearers = groupSizes.get(placements[bot.plan.index]!.group)! - 1;
    if (hearers > 0) rates.push(fleet.figures.heard[bot.plan.index]! / hearers / seconds);
  }
  return rates;
}

/** Measures the fleet for `seconds`: see {@link StepFigures}. */
async function measureStep(shape: Shape, fleet: Fleet, server: TestServer, placements: Placement[], seconds: number): Promise<StepFigures> {
  const bystander = await startBystander(server, seconds);
  const figures = fleet.figures;
  figures.reset();
  const metricsBefore = await scrape(server);
  const cpuBefore = await serverCpu(server);
  const coreBefore = coreTicks(1);
  const meter = meterLoad();
  figures.recording = true;
  // Progress on stderr, so a profiler or a database statistics reader can follow the measured window.
  console.error(`capacity: measuring ${shape} at ${fleet.bots.length} for ${seconds} s`);
  const reading = bystander.start();
  await sleep(seconds * 1000);
  const load = meter.stop(seconds);
  const coreAfter = coreTicks(1);
  const cpuAfter = await serverCpu(server);
  const metricsAfter = await scrape(server);
  const players = fleet.bots.length;
  const heard = heardRates(fleet, placements, seconds);
  const poses = { p50: figures.poseLatency.percentile(50), p99: figures.poseLatency.percentile(99) };
  const placed = new Set(figures.placed);
  await sleep(BLOCK_GRACE_MS);
  figures.recording = false;
  const rest = await reading;
  let missed = 0;
  for (const tile of placed) if (!figures.heardTiles.has(tile)) missed++;
  const cpu = cpuAfter.all - cpuBefore.all;
  const shed = (label?: string) => counterTotal(metricsAfter, 'tessera_broadcasts_shed_total', label) - counterTotal(metricsBefore, 'tessera_broadcasts_shed_total', label);
  const measured = {
    players,
    in_world: fleet.bots.filter((bot) => bot.ready()).length,
    pose_p50_ms: poses.p50,
    pose_p99_ms: poses.p99,
    heard_per_s_p10: round(percentile(heard, 10), 2),
    block_p99_ms: figures.blockLatency.percentile(99),
    blocks_placed: placed.size,
    blocks_missed: missed,
    rest_p99_ms: round(percentile(rest, 99), 1),
    server_cpu_cores: round(cpu / seconds, 2),
    server_cpu_ms_per_player_s: round((cpu * 1000) / (players * seconds), 3),
    server_node_cpu_cores: round((cpuAfter.node - cpuBefore.node) / seconds, 2),
    server_pss_mb: Math.round(await serverPss(server)),
    loop_delay_p99_ms: round(counterTotal(metricsAfter, 'nodejs_eventloop_lag_p99_seconds') * 1000, 1),
    ...load,
    load_core_busy: round((coreAfter.busy - coreBefore.busy) / Math.max(1, coreAfter.total - coreBefore.total), 2),
    shed_broadcasts: shed(),
    db_statements_prepared: counterTotal(metricsAfter, 'tessera_db_statements_prepared_total', 'outcome="prepared"'),
    shed_by_kind: { near: shed('kind="near"'), far: shed('kind="far"') },
    disconnects: figures.disconnects,
    refusals: Object.fromEntries(figures.refusals),
  };
  const broken = brokenGoals(shape, measured);
  return { ...measured, goals_met: broken.length === 0, goals_broken: broken };
}
