import { SWING_MS } from '../components/constants.js';
import { FOOTSTEP_STEPS, pushSound } from '../components/sounds.js';
import type { GameWorld } from '../components/world.js';

/**
 * Sounds the local player's footsteps every FOOTSTEP_STEPS steps while it walks, and ends each
 * sword swing SWING_MS after it started. An entry whose player has since started another swing
 * (or whose eid was freed and reused) ends nothing.
 */
export function animatePlayers(world: GameWorld): void {
  if (world.local && world.motion.moving[world.local] && world.step % FOOTSTEP_STEPS === 0) pushSound(world, 'step');
  const { swinging, swingStart } = world.combat;
  const q = world.swingers;
  const mask = q.eid.length - 1;
  const endsBefore = world.time - SWING_MS;
  while (q.length > 0 && q.start[q.head]! <= endsBefore) {
    const e = q.eid[q.head]!;
    if (swingStart[e] === q.start[q.head]) swinging[e] = 0;
    q.head = (q.head + 1) & mask;
    q.length--;
  }
}
