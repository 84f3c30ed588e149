/**
 * A spatial hash grid of 128 px cells, kept up to date incrementally: a player is moved only
 * when it crosses into a new cell (about once every 40 steps at walking speed), so indexing
 * costs one compare per player per step.
 *
 * Each hash bucket is 32 bytes holding three (eid, cell key) pairs inline and the head of an
 * overflow list for the rare fourth player. Moving a player touches little more than its old and
 * new bucket, and a reader checks each inline entry's cell from the bucket itself. Cells that
 * are neighbours along x hash to neighbouring buckets, so a 3-cell row is read from adjacent
 * memory. Hash collisions only add candidates; readers compare a candidate's cell key.
 */
import { COMBAT_RANGE } from './constants.js';

/**
 * Cell edge in pixels: two combat ranges, so the 2x2 cells that hold the corners of the box
 * reaching one range around a player cover every possible hit.
 */
export const GRID_CELL = 2 * COMBAT_RANGE;
/** Multiplier of a cell's y part in the bucket hash. */
export const HASH_Y = 19349663;
/** Int32 entries per bucket: INLINE_SLOTS (eid, key) pairs, the overflow head, one unused. */
export const BUCKET_INTS = 8;
/** Players a bucket holds inline before it links more into its overflow list. */
export const INLINE_SLOTS = 3;
/** Index of the overflow list head within a bucket. */
export const OVERFLOW_HEAD = 6;
/** Cell key of an eid that is not in the grid. */
export const NO_CELL = -1;
/** Bits of each cell coordinate in a key; coordinates wrap beyond, which only adds candidates. */
export const KEY_BITS = 15;
/** Mask of one coordinate's part of a key. */
export const KEY_MASK = (1 << KEY_BITS) - 1;
/** Added to cell coordinates so the world's cells (-1250..1249) form one unwrapped range. */
export const KEY_OFFSET = 1 << (KEY_BITS - 1);

/**
 * Buckets and per-eid records. eid 0 (never a bitECS entity) marks a free inline slot and ends
 * an overflow list.
 */
export interface SpatialGrid {
  mask: number;
  /** BUCKET_INTS per bucket: eid and cell key of each inline slot, then the overflow head. */
  buckets: Int32Array;
  /** Per eid: its cell key, NO_CELL while it is not in the grid. */
  cell: Int32Array;
  /** Overflow list links per eid. */
  next: Uint32Array;
  prev: Uint32Array;
  /** The `movedCount` eids put into a new cell this step (entering the grid included), by movement and then indexing. */
  moved: Uint32Array;
  movedCount: number;
  /** Other eids to look at next indexing step: spawned, defeated, back, or placed by interpolation. */
  dirty: number[];
}

/** An empty grid for eids up to `capacity`. */
export function createGrid(capacity: number): SpatialGrid {
  let count = 1024;
  while (count < capacity) count *= 2;
  const size = capacity + 1;
  return {
    mask: count - 1,
    buckets: new Int32Array(count * BUCKET_INTS),
    cell: new Int32Array(size).fill(NO_CELL),
    next: new Uint32Array(size),
    prev: new Uint32Array(size),
    moved: new Uint32Array(size),
    movedCount: 0,
    dirty: [],
  };
}

/** Key of cell (cx, cy): both coordinates offset and packed into 30 bits, never NO_CELL. */
export function cellKey(cx: number, cy: number): number {
  return (((cy + KEY_OFFSET) & KEY_MASK) << KEY_BITS) | ((cx + KEY_OFFSET) & KEY_MASK);
}

/** Asks the next indexing step to look at `eid`: call after placing it other than by movement, or after it is defeated or back. */
export function markForIndex(grid: SpatialGrid, eid: number): void {
  grid.dirty.push(eid);
}

/** Index in `buckets` of the bucket of cell `key`, in a table of `mask + 1` buckets. */
export function bucketOf(key: number, mask: number): number {
  return ((Math.imul(key >>> KEY_BITS, HASH_Y) + (key & KEY_MASK)) & mask) * BUCKET_INTS;
}

/** Puts `eid` into the cell of `key`. It must not be in the grid already. */
export function linkToCell(grid: SpatialGrid, eid: number, key: number): void {
  const { buckets } = grid;
  const b = bucketOf(key, grid.mask);
  grid.cell[eid] = key;
  for (let s = b; s < b + 2 * INLINE_SLOTS; s += 2) {
    if (buckets[s] !== 0) continue;
    buckets[s] = eid;
    buckets[s + 1] = key;
    return;
  }
  const first = buckets[b + OVERFLOW_HEAD]!;
  grid.next[eid] = first;
  grid.prev[eid] = 0;
  if (first) grid.prev[first] = eid;
  buckets[b + OVERFLOW_HEAD] = eid;
}

/** Takes `eid` out of the grid, if it is in it. */
export function unlinkFromGrid(grid: SpatialGrid, eid: number): void {
  const key = grid.cell[eid]!;
  if (key === NO_CELL) return;
  grid.cell[eid] = NO_CELL;
  const { buckets } = grid;
  const b = bucketOf(key, grid.mask);
  for (let s = b; s < b + 2 * INLINE_SLOTS; s += 2) {
    if (buckets[s] !== eid) continue;
    buckets[s] = 0;
    return;
  }
  const p = grid.prev[eid]!;
  const n = grid.next[eid]!;
  if (p) grid.next[p] = n;
  else buckets[b + OVERFLOW_HEAD] = n;
  if (n) grid.prev[n] = p;
}

/** Appends the eids in the cell of `key` to `out`. */
export function collectCell(grid: SpatialGrid, key: number, out: number[]): void {
  const { buckets, cell, next } = grid;
  const b = bucketOf(key, grid.mask);
  for (let s = b; s < b + 2 * INLINE_SLOTS; s += 2) {
    if (buckets[s] !== 0 && buckets[s + 1] === key) out.push(buckets[s]!);
  }
  for (let e = buckets[b + OVERFLOW_HEAD]!; e !== 0; e = next[e]!) {
    if (cell[e] === key) out.push(e);
  }
}
