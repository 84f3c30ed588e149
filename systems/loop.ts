/**
 * The fixed-step loop (Gaffer's "Fix Your Timestep"): real time accumulates and is spent in
 * STEP_MS steps, so the simulation is the same at any frame rate. A long stall (a background
 * tab) is capped at MAX_CATCHUP_STEPS rather than replayed all at once.
 */
import { MAX_CATCHUP_STEPS, STEP_MS } from '../components/constants.js';
import type { GameWorld } from '../components/world.js';
import { step } from './pipeline.js';

/**
 * Adds `elapsedMs` of real time to `accumulated` ms (capped at MAX_CATCHUP_STEPS steps), calls
 * `runStep` once for each STEP_MS that pays for, and returns the ms left over. The engine's loop
 * below, and players without an engine (test/support/headless-player.ts), step by it.
 */
export function spendSteps(accumulated: number, elapsedMs: number, runStep: () => void): number {
  let left = Math.min(accumulated + Math.max(0, elapsedMs), MAX_CATCHUP_STEPS * STEP_MS);
  for (; left >= STEP_MS; left -= STEP_MS) runStep();
  return left;
}

/** Adds `elapsedMs` of real time and runs the steps it pays for. Returns how far (0..1) the world is into the next step, for interpolation. */
export function advance(world: GameWorld, elapsedMs: number): number {
  world.accumulator = spendSteps(world.accumulator, elapsedMs, () => step(world));
  return world.accumulator / STEP_MS;
}
