/**
 * A spatial hash grid of 128 px cells, kept up to date incrementally: a player is moved only
 * when it crosses into a new cell (about once every 40 steps at walking speed), so indexing
 * costs one compare per player per step.
 *
 * Each hash bucket is one 64-byte cache line holding seven (eid, cell key) pairs inline, the
 * head of an overflow list for the rare eighth player, and which inline slots are taken. There
 * is about one bucket per two players, so a bucket seldom overflows and a reader seldom follows a
 * list (whose links are cache misses one after the other). Each player's slot is kept, so moving
 * a player writes its old and new bucket without searching either, and a reader checks each
 * inline entry's cell from the bucket itself. Cells are hashed in blocks of 4x4: the 16 buckets
 * of a block lie together (1 KiB), so a player crossing into a neighbouring cell, and a lookup of
 * 2x2 cells, mostly stays within one block instead of touching buckets far apart. Blocks are
 * spread over the table by a multiplicative (Fibonacci) hash, so the blocks of a crowded area do
 * not pile up in a few buckets. Hash collisions only add candidates; readers compare a
 * candidate's cell key.
 *
 * Cells are laid from the low corner (x and y) of the safe spawn area, which is wider than a cell
 * and narrower than two: cell (0, 0) lies wholly inside it and holds the spawn point, where
 * players respawn, and its far edges cross cells (1, 0), (0, 1) and (1, 1). Those three edge cells
 * are the only ones where a player's zone can change without a change of cell, and the grid lists
 * their players so that movement re-zones them without testing every player (a test that is true
 * for a random share of the players is a branch the processor cannot predict); the crowd that
 * stands at spawn after respawning needs no test at all.
 */
import { SAFE_END, SAFE_MIN } from './combat.js';
import { COMBAT_RANGE } from './constants.js';
import { createEidList, pushEid, type EidList } from './eid-list.js';

/**
 * Cell edge in pixels: two combat ranges, so the 2x2 cells that hold the corners of the box
 * reaching one range around a player cover every possible hit.
 */
export const GRID_CELL = 2 * COMBAT_RANGE;
/** Pixel coordinate (x and y) where cell 0 starts: the low corner of the safe spawn area. */
export const GRID_ORIGIN = SAFE_MIN;
/** Multiplier of a block's y part in the block number. */
export const HASH_Y = 19349663;
/** Odd multiplier (2^32 / golden ratio) that spreads block numbers over the table's blocks. */
const FIBONACCI = 0x9e3779b1;
/** Bits of a cell coordinate within its block of 4x4 cells. */
export const BLOCK_BITS = 2;
const BLOCK_MASK = (1 << BLOCK_BITS) - 1;
/** Int32 entries per bucket (64 bytes): INLINE_SLOTS (eid, key) pairs, the overflow head, the occupancy bits. */
export const BUCKET_INTS = 16;
/** Players a bucket holds inline before it links more into its overflow list. */
export const INLINE_SLOTS = 7;
/** Index of the overflow list head within a bucket. */
export const OVERFLOW_HEAD = 14;
/** Index within a bucket of its occupancy bits: bit i set while inline slot i holds a player. */
const OCCUPANCY = 15;
const ALL_SLOTS = (1 << INLINE_SLOTS) - 1;
/** `slot` of an eid on its bucket's overflow list. */
const IN_OVERFLOW = -1;
/** Players per bucket the table is sized for. */
const PLAYERS_PER_BUCKET = 2;
/** Cell key of an eid that is not in the grid. */
export const NO_CELL = -1;
/** Bits of each cell coordinate in a key; coordinates wrap beyond, which only adds candidates. */
export const KEY_BITS = 15;
/** Mask of one coordinate's part of a key. */
export const KEY_MASK = (1 << KEY_BITS) - 1;
/** Added to cell coordinates so the world's cells (-1250..1250) form one unwrapped range. */
export const KEY_OFFSET = 1 << (KEY_BITS - 1);
// Module-local copies for the functions below, which run for every lookup and every player that
// changes cell: optimized code reads an exported constant through its module cell, with checks, on
// every use, but folds a module-local constant into the code.
const BITS = KEY_BITS;
const MASK = KEY_MASK;
const OFFSET = KEY_OFFSET;
const BLOCK = BLOCK_BITS;
const MULTIPLIER_Y = HASH_Y;
const STRIDE = BUCKET_INTS;
const HEAD = OVERFLOW_HEAD;
const NONE = NO_CELL;
// The safe spawn area spans cells 0 and 1 on each axis (it is wider than one cell and narrower
// than two, and starts where cell 0 does); of those 2x2 cells, (0, 0) lies wholly inside it.
const SAFE_CELLS = Math.floor((SAFE_END - 1 - GRID_ORIGIN) / GRID_CELL) + 1;
const INSIDE_KEY = cellKey(0, 0);

/**
 * Buckets and per-eid records. A free inline slot holds eid 0 (never a bitECS entity) and key
 * NO_CELL; eid 0 also ends an overflow list.
 */
export interface SpatialGrid {
  /** 32 minus the bits of a block number: the shift that takes a Fibonacci hash to a block of the table. */
  blockShift: number;
  /** BUCKET_INTS per bucket: eid and cell key of each inline slot, then the overflow head. */
  buckets: Int32Array;
  /** Per eid: its cell key, NO_CELL while it is not in the grid. */
  cell: Int32Array;
  /** Per eid in the grid: index in `buckets` of its inline (eid, key) pair, or IN_OVERFLOW, so leaving a bucket needs no search. */
  slot: Int32Array;
  /** Overflow list links per eid. */
  next: Uint32Array;
  prev: Uint32Array;
  /** Other eids to look at next indexing step: spawned, defeated, back, or placed by interpolation. */
  dirty: number[];
  /** The players in the edge cells of the safe spawn area, in no particular order. */
  edgeMembers: EidList;
  /** Per eid: its index in edgeMembers, -1 while it is not there. */
  edgeIndex: Int32Array;
}

/** An empty grid for eids up to `capacity`. */
export function createGrid(capacity: number): SpatialGrid {
  let count = 1024;
  let bits = 10;
  while (count * PLAYERS_PER_BUCKET < capacity) {
    count *= 2;
    bits++;
  }
  const size = capacity + 1;
  const buckets = new Int32Array(count * BUCKET_INTS);
  // Free inline slots carry NO_CELL as their key, so a reader's key compare alone tells a member.
  for (let b = 0; b < buckets.length; b += BUCKET_INTS) {
    for (let s = b + 1; s < b + 2 * INLINE_SLOTS; s += 2) buckets[s] = NO_CELL;
  }
  return {
    blockShift: 32 - (bits - 2 * BLOCK_BITS),
    buckets,
    cell: new Int32Array(size).fill(NO_CELL),
    slot: new Int32Array(size),
    next: new Uint32Array(size),
    prev: new Uint32Array(size),
    dirty: [],
    edgeMembers: createEidList(),
    edgeIndex: new Int32Array(size).fill(-1),
  };
}

/** Key of cell (cx, cy): both coordinates offset and packed into 30 bits, never NO_CELL. */
export function cellKey(cx: number, cy: number): number {
  return (((cy + OFFSET) & MASK) << BITS) | ((cx + OFFSET) & MASK);
}

/** Key of the cell holding pixel (x, y). */
export function cellKeyAt(x: number, y: number): number {
  return cellKey(Math.floor((x - GRID_ORIGIN) / GRID_CELL), Math.floor((y - GRID_ORIGIN) / GRID_CELL));
}

/** Whether the cell of `key` is one of the edge cells of the safe spawn area, which its edge crosses (NO_CELL is not). */
export function isEdgeCell(key: number): boolean {
  // Per coordinate, the distance from cell 0; a coordinate below it wraps to a large value.
  const d = key - INSIDE_KEY;
  return (d & MASK) < SAFE_CELLS && (d >>> BITS) < SAFE_CELLS && key !== INSIDE_KEY;
}

/** Adds `eid`, which has just entered an edge cell, to the edge members. */
function joinEdge(grid: SpatialGrid, eid: number): void {
  grid.edgeIndex[eid] = grid.edgeMembers.length;
  pushEid(grid.edgeMembers, eid);
}

/** Takes `eid`, which has just left the edge cells, out of the edge members: the last member takes its place. */
function leaveEdge(grid: SpatialGrid, eid: number): void {
  const { edgeMembers: members, edgeIndex: index } = grid;
  const i = index[eid]!;
  const last = members.eids[--members.length]!;
  members.eids[i] = last;
  index[last] = i;
  index[eid] = -1;
}

/** Asks the next indexing step to look at `eid`: call after placing it other than by movement, or after it is defeated or back. */
export function markForIndex(grid: SpatialGrid, eid: number): void {
  grid.dirty.push(eid);
}

/** Index in `buckets` of the bucket of cell `key`, in a table whose block numbers are `32 - blockShift` bits. */
export function bucketOf(key: number, blockShift: number): number {
  const kx = key & MASK;
  const ky = key >>> BITS;
  const block = Math.imul(Math.imul(ky >>> BLOCK, MULTIPLIER_Y) + (kx >>> BLOCK), FIBONACCI) >>> blockShift;
  return ((block << (2 * BLOCK)) | ((ky & BLOCK_MASK) << BLOCK) | (kx & BLOCK_MASK)) * STRIDE;
}

/** Puts `eid` into the cell of `key`: into the bucket's lowest free inline slot, else onto its overflow list; joins the edge members in an edge cell. It must not be in the grid already. */
export function linkToCell(grid: SpatialGrid, eid: number, key: number): void {
  const { buckets } = grid;
  const b = bucketOf(key, grid.blockShift);
  grid.cell[eid] = key;
  const occupied = buckets[b + OCCUPANCY]!;
  const free = ~occupied & ALL_SLOTS;
  if (free !== 0) {
    const lowest = free & -free;
    const s = b + 2 * (31 - Math.clz32(lowest));
    buckets[b + OCCUPANCY] = occupied | lowest;
    buckets[s] = eid;
    buckets[s + 1] = key;
    grid.slot[eid] = s;
  } else {
    const first = buckets[b + HEAD]!;
    grid.slot[eid] = IN_OVERFLOW;
    grid.next[eid] = first;
    grid.prev[eid] = 0;
    if (first) grid.prev[first] = eid;
    buckets[b + HEAD] = eid;
  }
  if (isEdgeCell(key)) joinEdge(grid, eid);
}

/** Takes `eid` out of the bucket of cell `key`, where it is; leaves `cell` to the caller. */
function detach(grid: SpatialGrid, eid: number, key: number): void {
  const { buckets } = grid;
  const s = grid.slot[eid]!;
  if (s !== IN_OVERFLOW) {
    const b = s - (s & (STRIDE - 1));
    buckets[s] = 0;
    buckets[s + 1] = NONE;
    buckets[b + OCCUPANCY] = buckets[b + OCCUPANCY]! & ~(1 << ((s - b) >> 1));
    return;
  }
  const p = grid.prev[eid]!;
  const n = grid.next[eid]!;
  if (p) grid.next[p] = n;
  else buckets[bucketOf(key, grid.blockShift) + HEAD] = n;
  if (n) grid.prev[n] = p;
}

/** Takes `eid` out of the grid, if it is in it. */
export function unlinkFromGrid(grid: SpatialGrid, eid: number): void {
  const key = grid.cell[eid]!;
  if (key === NONE) return;
  grid.cell[eid] = NONE;
  detach(grid, eid, key);
  if (isEdgeCell(key)) leaveEdge(grid, eid);
}

/**
 * Moves each of the first `count` players in `eids` from the bucket of cell `from[i]`, where it
 * is, into the bucket of cell `to[i]`, as detach and then linkToCell would (joining or leaving
 * the edge members as it enters or leaves the edge cells); their cell records
 * must already read `to[i]` (movement writes them while they are at hand). One loop over the
 * grid's arrays, read once, with both steps written out: calling the two helpers here measured
 * about a sixth slower at a million players.
 */
export function moveToCells(grid: SpatialGrid, eids: Uint32Array, from: Int32Array, to: Int32Array, count: number): void {
  const { buckets, slot, next, prev, blockShift } = grid;
  for (let i = 0; i < count; i++) {
    const eid = eids[i]!;
    const s = slot[eid]!;
    if (s !== IN_OVERFLOW) {
      const b = s - (s & (STRIDE - 1));
      buckets[s] = 0;
      buckets[s + 1] = NONE;
      buckets[b + OCCUPANCY] = buckets[b + OCCUPANCY]! & ~(1 << ((s - b) >> 1));
    } else {
      const p = prev[eid]!;
      const n = next[eid]!;
      if (p) next[p] = n;
      else buckets[bucketOf(from[i]!, blockShift) + HEAD] = n;
      if (n) prev[n] = p;
    }
    const key = to[i]!;
    const b = bucketOf(key, blockShift);
    const occupied = buckets[b + OCCUPANCY]!;
    const free = ~occupied & ALL_SLOTS;
    if (free !== 0) {
      const lowest = free & -free;
      const t = b + 2 * (31 - Math.clz32(lowest));
      buckets[b + OCCUPANCY] = occupied | lowest;
      buckets[t] = eid;
      buckets[t + 1] = key;
      slot[eid] = t;
    } else {
      const first = buckets[b + HEAD]!;
      slot[eid] = IN_OVERFLOW;
      next[eid] = first;
      prev[eid] = 0;
      if (first) prev[first] = eid;
      buckets[b + HEAD] = eid;
    }
    const wasEdge = isEdgeCell(from[i]!);
    if (wasEdge !== isEdgeCell(key)) {
      if (wasEdge) leaveEdge(grid, eid);
      else joinEdge(grid, eid);
    }
  }
}

/** Appends the eids in the cell of `key` to `out`. */
export function collectCell(grid: SpatialGrid, key: number, out: number[]): void {
  const { buckets, cell, next } = grid;
  const b = bucketOf(key, grid.blockShift);
  for (let s = b; s < b + 2 * INLINE_SLOTS; s += 2) {
    if (buckets[s + 1] === key) out.push(buckets[s]!);
  }
  for (let e = buckets[b + HEAD]!; e !== 0; e = next[e]!) {
    if (cell[e] === key) out.push(e);
  }
}
