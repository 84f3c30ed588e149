/**
 * Headless tick benchmark: the whole simulation pipeline (everything but drawing) over worlds of
 * 1e3..1e6 players, most walking, some swinging at neighbours. After a machine header, prints one
 * JSON line per size: ms per step (min/median/max of the runs), ns per entity, the ns per entity
 * of a plain Float32Array `x += vx; y += vy` loop over the same count (the ceiling, timed right
 * after each run), and the ratio of the two within each run (min/median/max). `--quick` runs
 * fewer sizes and runs. The ceiling does less than the pipeline's movement alone: it keeps no
 * previous position, clamps to no world edge, computes no grid cell, and walks its arrays by
 * index rather than through a query's entity list.
 */
import { spawnSimulatedPlayer, startSwing } from '../components/players.js';
import { createRandom } from '../components/prng.js';
import { createGameWorld, type GameWorld } from '../components/world.js';
import { TILE_SIZE } from '../protocol/geometry.js';
import { PLAYER_SPEED } from '../protocol/movement.js';
import { step } from '../systems/pipeline.js';
import { median, pick, printHeader, round, spread } from './stats.js';
import { setVelocity } from '../components/transform.js';

const SIZES = pick([1e3, 1e4, 1e5, 1e6], [1e4, 1e5]);
const WARMUPS = 1;
const RUNS = pick(7, 3);
/** Share of players walking; the rest stand. */
const MOVING = 0.8;
/** Share of players starting a swing each step. */
const SWINGS_PER_STEP = 0.005;


function stepsFor(n: number): number {
  return Math.max(20, Math.min(400, Math.round(2e7 / n)));
}

/** A world of `n` players spread over a square east of spawn at about one per 3x3 tiles. */
function buildWorld(n: number): { world: GameWorld; eids: Uint32Array } {
  const world = createGameWorld({ capacity: n, seed: 7 });
  const random = createRandom(n);
  const side = Math.sqrt(n) * 3 * TILE_SIZE;
  const eids = new Uint32Array(n);
  const diagonal = PLAYER_SPEED * Math.SQRT1_2;
  for (let i = 0; i < n; i++) {
    const eid = spawnSimulatedPlayer(world, { id: `p${i}`, name: `Player ${i}`, x: 200 * TILE_SIZE + random() * side, y: (random() - 0.5) * side });
    eids[i] = eid;
    if (random() < MOVING) {
      const dx = Math.floor(random() * 3) - 1;
      const dy = dx === 0 ? (random() < 0.5 ? -1 : 1) : Math.floor(random() * 3) - 1;
      const speed = dx !== 0 && dy !== 0 ? diagonal : PLAYER_SPEED;
      setVelocity(world.transform, eid, dx * speed, dy * speed);
    }
  }
  return { world, eids };
}

function timeTicks(world: GameWorld, eids: Uint32Array, steps: number, cursor: { i: number }): number {
  const swings = Math.max(1, Math.round(eids.length * SWINGS_PER_STEP));
  const start = performance.now();
  for (let s = 0; s < steps; s++) {
    for (let k = 0; k < swings; k++) {
      startSwing(world, eids[cursor.i]!);
      cursor.i = (cursor.i + 7919) % eids.length;
    }
    step(world);
  }
  return (performance.now() - start) / steps;
}

function plainLoop(x: Float32Array, y: Float32Array, vx: Float32Array, vy: Float32Array): void {
  for (let i = 0; i < x.length; i++) {
    x[i]! += vx[i]!;
    y[i]! += vy[i]!;
  }
}

function timeCeiling(n: number, steps: number): number {
  const random = createRandom(1);
  const x = new Float32Array(n).map(() => random() * 1000);
  const y = new Float32Array(n).map(() => random() * 1000);
  const vx = new Float32Array(n).fill(PLAYER_SPEED);
  const vy = new Float32Array(n).fill(-PLAYER_SPEED);
  plainLoop(x, y, vx, vy);
  const start = performance.now();
  for (let s = 0; s < steps; s++) plainLoop(x, y, vx, vy);
  return (performance.now() - start) / steps;
}

printHeader('tick', { warmups: WARMUPS, runs: RUNS, sizes: SIZES, steps: SIZES.map(stepsFor) });
for (const n of SIZES) {
  const steps = stepsFor(n);
  const { world, eids } = buildWorld(n);
  const cursor = { i: 0 };
  for (let w = 0; w < WARMUPS; w++) timeTicks(world, eids, steps, cursor);
  const ticks: number[] = [];
  const ceilings: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    ticks.push(timeTicks(world, eids, steps, cursor));
    ceilings.push(timeCeiling(n, steps));
    ratios.push(ticks[r]! / ceilings[r]!);
  }
  const msPerTick = median(ticks);
  console.log(JSON.stringify({
    bench: 'tick',
    entities: n,
    steps,
    msPerTick: spread(ticks, 4),
    nsPerEntity: round((msPerTick * 1e6) / n, 2),
    ceilingNsPerEntity: round((median(ceilings) * 1e6) / n, 2),
    ratio: spread(ratios, 2),
  }));
}
