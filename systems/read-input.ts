import { KEY } from '../components/input.js';
import { selectHotbar } from '../components/inventory.js';
import { startSwing } from '../components/players.js';
import { setVelocity } from '../components/transform.js';
import { pushSound } from '../components/sounds.js';
import type { GameWorld } from '../components/world.js';
import { walkVelocity } from '../protocol/movement.js';

/** Turns held keys into the local player's velocity, moving flag and facing, applies keys 1-8, and starts a swing on Space. */
export function readInput(world: GameWorld): void {
  const input = world.input;
  const eid = world.local;
  if (input.hotbar >= 0) selectHotbar(world.inventory, input.hotbar);
  input.hotbar = -1;
  const swing = input.swing;
  input.swing = false;
  if (!eid) return;
  if (world.vitals.defeated[eid]) {
    setVelocity(world.transform, eid, 0, 0);
    world.motion.moving[eid] = 0;
    return;
  }
  const held = input.held;
  const dx = (held & KEY.right ? 1 : 0) - (held & KEY.left ? 1 : 0);
  const dy = (held & KEY.down ? 1 : 0) - (held & KEY.up ? 1 : 0);
  const { vx, vy } = walkVelocity(dx, dy);
  setVelocity(world.transform, eid, vx, vy);
  world.motion.moving[eid] = dx !== 0 || dy !== 0 ? 1 : 0;
  if (dx !== 0) world.motion.facing[eid] = dx;
  if (swing && startSwing(world, eid)) pushSound(world, 'swing');
}
