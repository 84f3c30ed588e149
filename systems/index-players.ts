import { safeAt } from '../components/combat.js';
import { NO_CELL, cellKeyAt, linkToCell, unlinkFromGrid } from '../components/grid.js';
import type { GameWorld } from '../components/world.js';

const NONE = NO_CELL;

/**
 * Brings the spatial grid up to date for the players marked with markForIndex (spawned,
 * defeated, back, or placed by interpolation; movement keeps its own players current):
 * players not defeated sit in the bucket of their cell, the rest are out of the grid. Sets the
 * zone (components/combat.ts safeAt) of each player it keeps in the grid.
 */
export function indexPlayers(world: GameWorld): void {
  const { grid, ids } = world;
  const pos = world.transform.pos;
  const { dirty } = grid;
  const defeated = world.vitals.defeated;
  const safe = world.combat.safe;
  for (let i = 0; i < dirty.length; i++) {
    const e = dirty[i]!;
    const old = grid.cell[e]!;
    if (defeated[e] || ids[e] === undefined) {
      if (old !== NONE) unlinkFromGrid(grid, e);
      continue;
    }
    const x = pos[2 * e]!;
    const y = pos[2 * e + 1]!;
    const key = cellKeyAt(x, y);
    safe[e] = safeAt(x, y);
    if (key === old) continue;
    if (old !== NONE) unlinkFromGrid(grid, e);
    linkToCell(grid, e, key);
  }
  dirty.length = 0;
}
