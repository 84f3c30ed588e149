/**
 * The order of the simulation, in one place. Each step: apply what arrived (net, HUD commands,
 * input), then simulate, then publish to the HUD and hand the step to the network session.
 * Drawing is not a step: it runs once per animation frame (systems/draw/draw-world.ts),
 * interpolating between the last two steps. Zones (safe or PvP) are kept where positions
 * change: by movement and by indexing.
 */
import { STEP_MS } from '../components/constants.js';
import type { GameWorld } from '../components/world.js';
import { animatePlayers } from './animate-players.js';
import { applyBuilds } from './apply-builds.js';
import { applyCommands } from './apply-commands.js';
import { applyNetEvents } from './apply-net-events.js';
import { indexPlayers } from './index-players.js';
import { movePlayers } from './move-players.js';
import { readInput } from './read-input.js';
import { resolveCombat } from './resolve-combat.js';
import { simulateRemotes } from './simulate-remotes.js';
import { syncNet } from './sync-net.js';
import { syncHud } from './sync-hud.js';
import { updateHealth } from './update-health.js';

/** A system: one function of the world, run once per step. */
export type System = (world: GameWorld) => void;

/** Every step's systems, in order. */
export const PIPELINE: readonly System[] = Object.freeze([
  applyNetEvents,
  applyCommands,
  readInput,
  applyBuilds,
  movePlayers,
  simulateRemotes,
  animatePlayers,
  indexPlayers,
  resolveCombat,
  updateHealth,
  syncHud,
  syncNet,
]);

/** Runs one fixed step of STEP_MS: advances the step number and world time, then every system in order. */
export function step(world: GameWorld): void {
  world.step++;
  world.time += STEP_MS;
  for (let i = 0; i < PIPELINE.length; i++) PIPELINE[i]!(world);
}
