import { asBuffer, query } from 'bitecs';
import { WORLD_MAX_X, WORLD_MAX_Y, WORLD_MIN_X, WORLD_MIN_Y } from '../components/constants.js';
import { GRID_CELL, KEY_BITS, KEY_OFFSET, NO_CELL, linkToCell, unlinkFromGrid, type SpatialGrid } from '../components/grid.js';
import type { GameWorld } from '../components/world.js';

const MIN_X = WORLD_MIN_X;
const MAX_X = WORLD_MAX_X;
const MIN_Y = WORLD_MIN_Y;
const MAX_Y = WORLD_MAX_Y;
// The cell key of components/grid.ts cellKey, computed inline for every player. Shifted by the
// key offset in pixels, every position inside the world is positive, so truncating with `| 0`
// is Math.floor (and cheaper), and the cell coordinates stay within KEY_MASK.
const INV_CELL = 1 / GRID_CELL;
const BITS = KEY_BITS;
const OFFSET_PX = KEY_OFFSET * GRID_CELL;
const NONE = NO_CELL;

/** Moves `e` from its cell into the cell of `key`. */
function relink(grid: SpatialGrid, e: number, key: number): void {
  unlinkFromGrid(grid, e);
  linkToCell(grid, e, key);
}

function moveAll(
  eids: Uint32Array, x: Float32Array, y: Float32Array, prevX: Float32Array, prevY: Float32Array,
  vx: Float32Array, vy: Float32Array, grid: SpatialGrid,
): number {
  const { cell, moved } = grid;
  let count = 0;
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!;
    const ox = x[e]!;
    const oy = y[e]!;
    prevX[e] = ox;
    prevY[e] = oy;
    // No early exit for standing players: a mixed crowd would make that branch unpredictable.
    const nx = ox + vx[e]!;
    const ny = oy + vy[e]!;
    // Rounded as the Float32Array stores them, so the cell matches what indexing computes.
    const px = Math.fround(nx < MIN_X ? MIN_X : nx > MAX_X ? MAX_X : nx);
    const py = Math.fround(ny < MIN_Y ? MIN_Y : ny > MAX_Y ? MAX_Y : ny);
    x[e] = px;
    y[e] = py;
    const key = ((((py + OFFSET_PX) * INV_CELL) | 0) << BITS) | (((px + OFFSET_PX) * INV_CELL) | 0);
    const old = cell[e]!;
    // Players out of the grid (defeated, or not indexed yet) are left to indexing.
    if (key === old || old === NONE) continue;
    relink(grid, e, key);
    moved[count++] = e;
  }
  return count;
}

/**
 * Keeps each player's previous position for interpolation, then moves it by its velocity within
 * the world's bounds. A player in the spatial grid that crossed into another cell is moved there
 * and listed in `grid.moved`.
 */
export function movePlayers(world: GameWorld): void {
  const { transform: t, grid } = world;
  grid.movedCount = moveAll(query(world, [world.Player], asBuffer) as Uint32Array, t.x, t.y, t.prevX, t.prevY, t.vx, t.vy, grid);
}
