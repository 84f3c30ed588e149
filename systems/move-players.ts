import { asBuffer, query } from 'bitecs';
import { WORLD_MAX_X, WORLD_MAX_Y, WORLD_MIN_X, WORLD_MIN_Y } from '../components/constants.js';
import { safeAt } from '../components/combat.js';
import { GRID_CELL, GRID_ORIGIN, KEY_BITS, KEY_OFFSET, NO_CELL, moveToCells } from '../components/grid.js';
import type { GameWorld } from '../components/world.js';

const MIN_X = WORLD_MIN_X;
const MAX_X = WORLD_MAX_X;
const MIN_Y = WORLD_MIN_Y;
const MAX_Y = WORLD_MAX_Y;
// The cell key of components/grid.ts cellKey, computed inline for every player. Shifted by the
// grid origin and the key offset in pixels, every position inside the world is positive, so
// truncating with `| 0` is Math.floor (and cheaper), and the cell coordinates stay within KEY_MASK.
const INV_CELL = 1 / GRID_CELL;
const BITS = KEY_BITS;
const OFFSET_PX = KEY_OFFSET * GRID_CELL - GRID_ORIGIN;
const NONE = NO_CELL;

/** Scratch of moveAll: the players whose cell changed, with their old and new cell. */
let movers = new Uint32Array(0);
let fromCell = new Int32Array(0);
let toCell = new Int32Array(0);

/**
 * Writes each player's next position into `next` from its position in `pos` (which becomes the
 * previous one); lists in `movers` those in the grid whose cell changed, with their old and new
 * cell, writes the new one into their cell record (whose cache line is at hand here) and sets
 * their zone (components/combat.ts safeAt); returns their count. Players out of the grid
 * (defeated, or not indexed yet) are left to indexing and keep their zone until then.
 */
function moveAll(eids: Uint32Array, pos: Float32Array, next: Float32Array, vel: Float32Array, cell: Int32Array, safe: Uint8Array): number {
  let count = 0;
  // The length read once rather than by the loop condition on every iteration (about 0.1 ms a
  // step at 1M players).
  const players = eids.length;
  for (let i = 0; i < players; i++) {
    const e = eids[i]!;
    const ix = 2 * e;
    const iy = ix + 1;
    const ox = pos[ix]!;
    const oy = pos[iy]!;
    // No early exit for standing players: a mixed crowd would make that branch unpredictable.
    const nx = ox + vel[ix]!;
    const ny = oy + vel[iy]!;
    // Rounded as the Float32Array stores them, so the cell matches what indexing computes.
    const px = Math.fround(nx < MIN_X ? MIN_X : nx > MAX_X ? MAX_X : nx);
    const py = Math.fround(ny < MIN_Y ? MIN_Y : ny > MAX_Y ? MAX_Y : ny);
    next[ix] = px;
    next[iy] = py;
    const key = ((((py + OFFSET_PX) * INV_CELL) | 0) << BITS) | (((px + OFFSET_PX) * INV_CELL) | 0);
    const old = cell[e]!;
    // The common case first: a player in the grid that stays in its cell (a key is never NONE).
    if (old === key) continue;
    // Players out of the grid (defeated, or not indexed yet) are left to indexing.
    if (old === NONE) continue;
    safe[e] = safeAt(px, py);
    cell[e] = key;
    movers[count] = e;
    fromCell[count] = old;
    toCell[count++] = key;
  }
  return count;
}

/**
 * Sets the zone of every player in the edge cells of the spawn area, where it can change without
 * a change of cell; the grid lists them (components/grid.ts), so the streaming pass tests no one.
 */
function rezoneEdgeMembers(world: GameWorld): void {
  const { eids, length } = world.grid.edgeMembers;
  const pos = world.transform.pos;
  const safe = world.combat.safe;
  for (let i = 0; i < length; i++) {
    const e = eids[i]!;
    safe[e] = safeAt(pos[2 * e]!, pos[2 * e + 1]!);
  }
}

/**
 * Keeps each player's previous position for interpolation, then moves it by its velocity within
 * the world's bounds. The position and previous-position stores swap roles: the new positions
 * are written over the old previous ones, so a step writes one store instead of copying one and
 * writing the other. A player in the spatial grid that crossed into another cell is moved there.
 * Each player's zone is kept up to date here (and by indexing for players placed otherwise):
 * safe inside the spawn area, PvP elsewhere.
 */
export function movePlayers(world: GameWorld): void {
  const { transform: t, grid } = world;
  const eids = query(world, [world.Player], asBuffer) as Uint32Array;
  if (movers.length < eids.length) {
    movers = new Uint32Array(eids.length);
    fromCell = new Int32Array(eids.length);
    toCell = new Int32Array(eids.length);
  }
  const pos = t.pos;
  const count = moveAll(eids, pos, t.prev, t.vel, grid.cell, world.combat.safe);
  t.pos = t.prev;
  t.prev = pos;
  // After the streaming pass rather than inside it: each move touches two buckets anywhere in
  // the table, and a short loop that reads nothing else lets the processor overlap those misses.
  moveToCells(grid, movers, fromCell, toCell, count);
  rezoneEdgeMembers(world);
}
