/**
 * A spatial hash grid of 64 px cells, kept up to date incrementally: each bucket is an
 * intrusive doubly linked list of eids, and a player is relinked only when it crosses into a
 * new cell (about once every 20 steps at walking speed), so indexing costs one cell compare per
 * player per step. Hash collisions only add candidates; readers compare a candidate's cell.
 */
import { COMBAT_RANGE } from './constants.js';

/** Cell edge in pixels: one combat range, so a 3x3 block of cells covers every possible hit. */
export const GRID_CELL = COMBAT_RANGE;
/** Multiplier of a cell's x in the bucket hash. */
export const HASH_X = 73856093;
/** Multiplier of a cell's y in the bucket hash. */
export const HASH_Y = 19349663;

/** Linked-list buckets; eid 0 (never a bitECS entity) ends a list. */
export interface SpatialGrid {
  mask: number;
  head: Uint32Array;
  next: Uint32Array;
  prev: Uint32Array;
  cellX: Int32Array;
  cellY: Int32Array;
  /** 1 while the eid is linked into a bucket. */
  linked: Uint8Array;
}

/** An empty grid for eids up to `capacity`. */
export function createGrid(capacity: number): SpatialGrid {
  let buckets = 1024;
  while (buckets < capacity) buckets *= 2;
  const size = capacity + 1;
  return {
    mask: buckets - 1,
    head: new Uint32Array(buckets),
    next: new Uint32Array(size),
    prev: new Uint32Array(size),
    cellX: new Int32Array(size),
    cellY: new Int32Array(size),
    linked: new Uint8Array(size),
  };
}

/** Bucket of cell (cx, cy) in a table of `mask + 1` buckets. */
export function cellBucket(cx: number, cy: number, mask: number): number {
  return (Math.imul(cx, HASH_X) ^ Math.imul(cy, HASH_Y)) & mask;
}

/** Links `eid` into the bucket of cell (cx, cy). It must not be linked already. */
export function linkToCell(grid: SpatialGrid, eid: number, cx: number, cy: number): void {
  const b = cellBucket(cx, cy, grid.mask);
  const first = grid.head[b]!;
  grid.next[eid] = first;
  grid.prev[eid] = 0;
  if (first) grid.prev[first] = eid;
  grid.head[b] = eid;
  grid.cellX[eid] = cx;
  grid.cellY[eid] = cy;
  grid.linked[eid] = 1;
}

/** Takes `eid` out of its bucket, if it is in one. */
export function unlinkFromGrid(grid: SpatialGrid, eid: number): void {
  if (!grid.linked[eid]) return;
  const p = grid.prev[eid]!;
  const n = grid.next[eid]!;
  if (p) grid.next[p] = n;
  else grid.head[cellBucket(grid.cellX[eid]!, grid.cellY[eid]!, grid.mask)] = n;
  if (n) grid.prev[n] = p;
  grid.linked[eid] = 0;
}
