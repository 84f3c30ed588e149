import { asBuffer, query } from 'bitecs';
import { WORLD_MAX_X, WORLD_MAX_Y, WORLD_MIN_X, WORLD_MIN_Y } from '../components/constants.js';
import type { GameWorld } from '../components/world.js';

const MIN_X = WORLD_MIN_X;
const MAX_X = WORLD_MAX_X;
const MIN_Y = WORLD_MIN_Y;
const MAX_Y = WORLD_MAX_Y;

function moveAll(
  eids: Uint32Array, x: Float32Array, y: Float32Array, prevX: Float32Array, prevY: Float32Array,
  vx: Float32Array, vy: Float32Array,
): void {
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!;
    const ox = x[e]!;
    const oy = y[e]!;
    prevX[e] = ox;
    prevY[e] = oy;
    // No early exit for standing players: a mixed crowd would make that branch unpredictable.
    const nx = ox + vx[e]!;
    const ny = oy + vy[e]!;
    x[e] = nx < MIN_X ? MIN_X : nx > MAX_X ? MAX_X : nx;
    y[e] = ny < MIN_Y ? MIN_Y : ny > MAX_Y ? MAX_Y : ny;
  }
}

/** Keeps each player's previous position for interpolation, then moves it by its velocity within the world's bounds. */
export function movePlayers(world: GameWorld): void {
  const t = world.transform;
  moveAll(query(world, [world.Player], asBuffer) as Uint32Array, t.x, t.y, t.prevX, t.prevY, t.vx, t.vy);
}
