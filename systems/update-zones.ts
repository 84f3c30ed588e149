import { SPAWN_RADIUS, TILE_SIZE } from '../components/constants.js';
import { GRID_CELL, cellKey, collectCell } from '../components/grid.js';
import type { GameWorld } from '../components/world.js';

// Tiles -R..R span pixels [-R*32, (R+1)*32): the safe zone as a pixel interval, no floor needed.
const SAFE_MIN = -SPAWN_RADIUS * TILE_SIZE;
const SAFE_END = (SPAWN_RADIUS + 1) * TILE_SIZE;
// The grid cells that overlap the safe zone: only a player in one of them can be safe.
const CELL_MIN = Math.floor(SAFE_MIN / GRID_CELL);
const CELL_MAX = Math.floor((SAFE_END - 1) / GRID_CELL);
const SPAWN_CELLS: readonly number[] = Object.freeze(
  Array.from({ length: (CELL_MAX - CELL_MIN + 1) ** 2 }, (_, i) => {
    const side = CELL_MAX - CELL_MIN + 1;
    return cellKey(CELL_MIN + (i % side), CELL_MIN + Math.floor(i / side));
  }),
);

function isSafe(px: number, py: number): number {
  return px >= SAFE_MIN && px < SAFE_END && py >= SAFE_MIN && py < SAFE_END ? 1 : 0;
}

function zoneMoved(eids: Uint32Array, count: number, x: Float32Array, y: Float32Array, safe: Uint8Array): void {
  for (let i = 0; i < count; i++) {
    const e = eids[i]!;
    safe[e] = isSafe(x[e]!, y[e]!);
  }
}

const nearSpawn: number[] = [];

/**
 * Marks each player safe when its tile is in the spawn area (|tileX| <= 2 and |tileY| <= 2), PvP
 * otherwise. A player's zone can only change when it changes grid cell or stands in a cell that
 * overlaps the spawn area, so only those players are looked at; players out of the grid
 * (defeated) keep their zone until they are back. Runs after indexing.
 */
export function updateZones(world: GameWorld): void {
  const { grid, transform: t } = world;
  const safe = world.combat.safe;
  zoneMoved(grid.moved, grid.movedCount, t.x, t.y, safe);
  nearSpawn.length = 0;
  for (let i = 0; i < SPAWN_CELLS.length; i++) collectCell(grid, SPAWN_CELLS[i]!, nearSpawn);
  for (let i = 0; i < nearSpawn.length; i++) {
    const e = nearSpawn[i]!;
    safe[e] = isSafe(t.x[e]!, t.y[e]!);
  }
}
