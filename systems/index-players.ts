import { GRID_CELL, KEY_BITS, KEY_MASK, KEY_OFFSET, NO_CELL, linkToCell, unlinkFromGrid } from '../components/grid.js';
import type { GameWorld } from '../components/world.js';

// Module-local copies of the key layout (components/grid.ts cellKey).
const INV_CELL = 1 / GRID_CELL;
const BITS = KEY_BITS;
const MASK = KEY_MASK;
const OFFSET = KEY_OFFSET;
const NONE = NO_CELL;

/**
 * Brings the spatial grid up to date for the players marked with markForIndex (spawned,
 * defeated, back, or placed by interpolation; movement keeps its own players current):
 * players not defeated sit in the bucket of their cell, the rest are out of the grid. Appends
 * those put into a new cell to `grid.moved`.
 */
export function indexPlayers(world: GameWorld): void {
  const { grid, ids } = world;
  const { x, y } = world.transform;
  const { moved, dirty } = grid;
  const defeated = world.vitals.defeated;
  let count = grid.movedCount;
  for (let i = 0; i < dirty.length; i++) {
    const e = dirty[i]!;
    const old = grid.cell[e]!;
    if (defeated[e] || ids[e] === undefined) {
      if (old !== NONE) unlinkFromGrid(grid, e);
      continue;
    }
    const key = (((Math.floor(y[e]! * INV_CELL) + OFFSET) & MASK) << BITS) | ((Math.floor(x[e]! * INV_CELL) + OFFSET) & MASK);
    if (key === old) continue;
    if (old !== NONE) unlinkFromGrid(grid, e);
    linkToCell(grid, e, key);
    moved[count++] = e;
  }
  dirty.length = 0;
  grid.movedCount = count;
}
