import { asBuffer, query } from 'bitecs';
import { pushSwing } from '../components/combat.js';
import { WORLD_MAX_X, WORLD_MAX_Y, WORLD_MIN_X, WORLD_MIN_Y } from '../components/constants.js';
import { markForIndex } from '../components/grid.js';
import { correction, SILENT_STOP_MS } from '../components/pose.js';
import type { GameWorld } from '../components/world.js';

const pull = { x: 0, y: 0 };
/** Below this many pixels per step a remote player counts as standing still. */
const STILL_PX = 0.05;

const clamp = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/**
 * Walks each remote player's authoritative track one step (the figure itself was walked by
 * movePlayers with the same velocity), then pulls the figure toward the track by at most
 * CORRECTION_PX_PER_STEP (components/pose.ts). A walker silent for SILENT_STOP_MS stops.
 * Derives the moving flag and facing from the drawn motion; a newly shown swing starts the sword.
 */
export function simulateRemotes(world: GameWorld): void {
  const eids = query(world, [world.Remote], asBuffer) as Uint32Array;
  const { pos, prev, vel } = world.transform;
  const { moving, facing } = world.motion;
  const { swinging, swingStart } = world.combat;
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!;
    const track = world.poses.get(e);
    if (!track) continue;
    if ((track.vx !== 0 || track.vy !== 0) && world.time - track.lastLive > SILENT_STOP_MS) {
      track.vx = track.vy = 0;
      vel[2 * e] = vel[2 * e + 1] = 0;
    }
    track.x = clamp(track.x + track.vx, WORLD_MIN_X, WORLD_MAX_X);
    track.y = clamp(track.y + track.vy, WORLD_MIN_Y, WORLD_MAX_Y);
    correction(track, pos[2 * e]!, pos[2 * e + 1]!, pull);
    if (pull.x !== 0 || pull.y !== 0) {
      pos[2 * e] = pos[2 * e]! + pull.x;
      pos[2 * e + 1] = pos[2 * e + 1]! + pull.y;
      markForIndex(world.grid, e);
    }
    const dx = pos[2 * e]! - prev[2 * e]!;
    moving[e] = Math.abs(dx) + Math.abs(pos[2 * e + 1]! - prev[2 * e + 1]!) > STILL_PX ? 1 : 0;
    if (Math.abs(dx) > STILL_PX) facing[e] = dx < 0 ? -1 : 1;
    if (track.swinging && !swinging[e]) {
      swinging[e] = 1;
      swingStart[e] = world.time;
      pushSwing(world.swingers, e, world.time);
    }
  }
}
