import { SWING_MS } from '../components/constants.js';
import type { GameWorld } from '../components/world.js';

/**
 * Advances the frame counter, which drives the walking bob, the spawn pulse and the ocean
 * waves, and ends each sword swing SWING_MS after it started.
 */
export function animatePlayers(world: GameWorld): void {
  world.frame++;
  const { swinging, swingStart } = world.combat;
  const swingers = world.swingers;
  const endsBefore = world.time - SWING_MS;
  for (let i = swingers.length - 1; i >= 0; i--) {
    const e = swingers[i]!;
    if (swingStart[e]! > endsBefore) continue;
    swinging[e] = 0;
    swingers[i] = swingers[swingers.length - 1]!;
    swingers.pop();
  }
}
