import { asBuffer, query } from 'bitecs';
import { GRID_CELL, KEY_BITS, KEY_MASK, KEY_OFFSET, NO_CELL, linkToCell, unlinkFromGrid, type SpatialGrid } from '../components/grid.js';
import type { GameWorld } from '../components/world.js';

// Module-local copies of the key layout (components/grid.ts cellKey): read for every player.
const INV_CELL = 1 / GRID_CELL;
const BITS = KEY_BITS;
const MASK = KEY_MASK;
const OFFSET = KEY_OFFSET;
const NONE = NO_CELL;

function indexAll(eids: Uint32Array, x: Float32Array, y: Float32Array, defeated: Uint8Array, grid: SpatialGrid): number {
  const { cell, moved } = grid;
  let count = 0;
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!;
    const old = cell[e]!;
    if (defeated[e]) {
      if (old !== NONE) unlinkFromGrid(grid, e);
      continue;
    }
    const key = (((Math.floor(y[e]! * INV_CELL) + OFFSET) & MASK) << BITS) | ((Math.floor(x[e]! * INV_CELL) + OFFSET) & MASK);
    if (key === old) continue;
    if (old !== NONE) unlinkFromGrid(grid, e);
    linkToCell(grid, e, key);
    moved[count++] = e;
  }
  return count;
}

/**
 * Keeps the spatial grid current: players not defeated sit in the bucket of their cell. Lists
 * the players that changed cell in `grid.moved`.
 */
export function indexPlayers(world: GameWorld): void {
  world.grid.movedCount = indexAll(query(world, [world.Player], asBuffer) as Uint32Array, world.transform.x, world.transform.y, world.vitals.defeated, world.grid);
}
