import { asBuffer, query } from 'bitecs';
import { GRID_CELL, linkToCell, unlinkFromGrid, type SpatialGrid } from '../components/grid.js';
import type { GameWorld } from '../components/world.js';

const INV_CELL = 1 / GRID_CELL;

function indexAll(eids: Uint32Array, x: Float32Array, y: Float32Array, defeated: Uint8Array, grid: SpatialGrid): void {
  const { cellX, cellY, linked } = grid;
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!;
    if (defeated[e]) {
      if (linked[e]) unlinkFromGrid(grid, e);
      continue;
    }
    const cx = Math.floor(x[e]! * INV_CELL);
    const cy = Math.floor(y[e]! * INV_CELL);
    if (linked[e]) {
      if (cx === cellX[e] && cy === cellY[e]) continue;
      unlinkFromGrid(grid, e);
    }
    linkToCell(grid, e, cx, cy);
  }
}

/** Keeps the spatial grid current: players not defeated sit in the bucket of their 64 px cell. */
export function indexPlayers(world: GameWorld): void {
  indexAll(query(world, [world.Player], asBuffer) as Uint32Array, world.transform.x, world.transform.y, world.vitals.defeated, world.grid);
}
