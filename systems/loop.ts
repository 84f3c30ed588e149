/**
 * The fixed-step loop (Gaffer's "Fix Your Timestep"): real time accumulates and is spent in
 * STEP_MS steps, so the simulation is the same at any frame rate. A long stall (a background
 * tab) is capped at MAX_CATCHUP_STEPS rather than replayed all at once.
 */
import { MAX_CATCHUP_STEPS, STEP_MS } from '../components/constants.js';
import type { GameWorld } from '../components/world.js';
import { step } from './pipeline.js';

/** Adds `elapsedMs` of real time and runs the steps it pays for. Returns how far (0..1) the world is into the next step, for interpolation. */
export function advance(world: GameWorld, elapsedMs: number): number {
  world.accumulator = Math.min(world.accumulator + Math.max(0, elapsedMs), MAX_CATCHUP_STEPS * STEP_MS);
  while (world.accumulator >= STEP_MS) {
    step(world);
    world.accumulator -= STEP_MS;
  }
  return world.accumulator / STEP_MS;
}
