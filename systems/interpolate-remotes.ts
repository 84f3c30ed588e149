import { asBuffer, query } from 'bitecs';
import { pushSwing } from '../components/combat.js';
import { INTERPOLATION_DELAY_MS } from '../components/constants.js';
import { markForIndex } from '../components/grid.js';
import { samplePose } from '../components/pose.js';
import type { GameWorld } from '../components/world.js';

const sample = { x: 0, y: 0 };
/** Below this many pixels per step a remote player counts as standing still. */
const STILL_PX = 0.05;

/**
 * Places each remote player where its pose buffer says it was INTERPOLATION_DELAY_MS ago,
 * and derives its moving flag and facing from that motion; a newly shown swing starts the sword.
 */
export function interpolateRemotes(world: GameWorld): void {
  const eids = query(world, [world.Remote], asBuffer) as Uint32Array;
  const { x, y, prevX, prevY } = world.transform;
  const { moving, facing } = world.motion;
  const { swinging, swingStart } = world.combat;
  const at = world.time - INTERPOLATION_DELAY_MS;
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!;
    const buf = world.poses.get(e);
    if (!buf || !samplePose(buf, at, sample)) continue;
    x[e] = sample.x;
    y[e] = sample.y;
    markForIndex(world.grid, e);
    const dx = sample.x - prevX[e]!;
    moving[e] = Math.abs(dx) + Math.abs(sample.y - prevY[e]!) > STILL_PX ? 1 : 0;
    if (Math.abs(dx) > STILL_PX) facing[e] = dx < 0 ? -1 : 1;
    if (buf.swinging && !swinging[e]) {
      swinging[e] = 1;
      swingStart[e] = world.time;
      pushSwing(world.swingers, e, world.time);
    }
  }
}
