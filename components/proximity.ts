/**
 * Range lookups over the spatial grid (kept by systems/index-players): the nearest targets of
 * swings and the count of players near someone. Defeated players are not in the grid. Both scan
 * the 2x2 cells under the box one range around the player; a bucket may also hold other cells
 * that hash alike, so each candidate is taken only from its own cell.
 *
 * Targets are found for a whole batch of swings in two passes: first the candidates of every
 * swing are gathered from the buckets, then each swing's candidates are measured. Each pass is a
 * short loop whose memory reads do not depend on each other, so the processor overlaps their
 * cache misses instead of waiting for a bucket, then a position, swing after swing.
 */
import { COMBAT_RANGE } from './constants.js';
import { GRID_CELL, GRID_ORIGIN, INLINE_SLOTS, KEY_BITS, KEY_MASK, KEY_OFFSET, NO_CELL, OVERFLOW_HEAD, bucketOf, type SpatialGrid } from './grid.js';
import { createEidList, resizeEidList, type EidList } from './eid-list.js';
import type { GameWorld } from './world.js';

// Module-local copies: hot loops read these on every candidate.
const RANGE = COMBAT_RANGE;
const RANGE_SQ = RANGE * RANGE;
// Subtracted from a player's position: the low corner of the box one range around it, measured from the grid origin.
const LOW = RANGE + GRID_ORIGIN;
const INV_CELL = 1 / GRID_CELL;
const OFFSET = KEY_OFFSET;
const BITS = KEY_BITS;
const MASK = KEY_MASK;
const INLINE_END = 2 * INLINE_SLOTS;
const OVERFLOW = OVERFLOW_HEAD;

/** Candidates gathered for a batch: eids, and where each searcher's run of them ends. */
let candidates = new Uint32Array(4096);
let runEnds = new Uint32Array(256);

/** Appends the players of the 2x2 cells around (ax, ay) to `candidates` from index `n`; returns the new length. */
function gather(grid: SpatialGrid, ax: number, ay: number, n: number): number {
  const { buckets, cell, next, blockShift } = grid;
  const kx = Math.floor((ax - LOW) * INV_CELL) + OFFSET;
  const ky = Math.floor((ay - LOW) * INV_CELL) + OFFSET;
  for (let oy = ky; oy <= ky + 1; oy++) {
    const row = (oy & MASK) << BITS;
    for (let ox = kx; ox <= kx + 1; ox++) {
      const k = row | (ox & MASK);
      const b = bucketOf(k, blockShift);
      // Room for a full bucket before any append; overflow lists grow it as they go.
      if (n + INLINE_SLOTS >= candidates.length) candidates = grow(candidates, n);
      // Without branches: every slot is written, and kept only when its key is this cell's (a
      // free slot's key is NO_CELL), so slots in any order cost no mispredicted jumps.
      for (let s = b; s < b + INLINE_END; s += 2) {
        candidates[n] = buckets[s]!;
        n += +(buckets[s + 1] === k);
      }
      for (let e = buckets[b + OVERFLOW]!; e !== 0; e = next[e]!) {
        if (cell[e] !== k) continue;
        if (n === candidates.length) candidates = grow(candidates, n);
        candidates[n++] = e;
      }
    }
  }
  return n;
}

function grow(array: Uint32Array, used: number): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(array.length * 2);
  bigger.set(array.subarray(0, used));
  return bigger;
}

/**
 * For each eid in `searchers`, the nearest other player within COMBAT_RANGE (inclusive) that is
 * not in the safe zone, or 0 (also for a searcher out of the grid), into `targets` at the same
 * index; `targets` takes the length of `searchers`.
 */
export function nearestTargets(world: GameWorld, searchers: EidList, targets: EidList): void {
  const grid = world.grid;
  const cell = grid.cell;
  const pos = world.transform.pos;
  const safe = world.combat.safe;
  resizeEidList(targets, searchers.length);
  if (runEnds.length < searchers.length) runEnds = new Uint32Array(searchers.length * 2);
  let n = 0;
  for (let i = 0; i < searchers.length; i++) {
    const eid = searchers.eids[i]!;
    if (cell[eid] !== NO_CELL) n = gather(grid, pos[2 * eid]!, pos[2 * eid + 1]!, n);
    runEnds[i] = n;
  }
  let start = 0;
  for (let i = 0; i < searchers.length; i++) {
    const eid = searchers.eids[i]!;
    const end = runEnds[i]!;
    const ax = pos[2 * eid]!;
    const ay = pos[2 * eid + 1]!;
    let best = 0;
    let bestSq = RANGE_SQ + 1;
    for (let c = start; c < end; c++) {
      const e = candidates[c]!;
      if (e === eid) continue;
      const dx = pos[2 * e]! - ax;
      const dy = pos[2 * e + 1]! - ay;
      const dSq = dx * dx + dy * dy;
      // Equal distances go to the lower eid, so the choice does not depend on bucket order.
      if ((dSq < bestSq || (dSq === bestSq && e < best)) && !safe[e]) {
        best = e;
        bestSq = dSq;
      }
    }
    targets.eids[i] = best;
    start = end;
  }
}

const single = createEidList(1);
const singleTarget = createEidList(1);

/** The nearest other player within COMBAT_RANGE (inclusive) of `eid` that is not in the safe zone, or 0. */
export function nearestTarget(world: GameWorld, eid: number): number {
  single.eids[0] = eid;
  single.length = 1;
  nearestTargets(world, single, singleTarget);
  return singleTarget.eids[0]!;
}

/** How many other players are within COMBAT_RANGE (inclusive) of `eid`; 0 when `eid` is not indexed. */
export function countPlayersNear(world: GameWorld, eid: number): number {
  const grid = world.grid;
  if (grid.cell[eid] === NO_CELL) return 0;
  const pos = world.transform.pos;
  const ax = pos[2 * eid]!;
  const ay = pos[2 * eid + 1]!;
  const end = gather(grid, ax, ay, 0);
  let near = 0;
  for (let c = 0; c < end; c++) {
    const e = candidates[c]!;
    if (e === eid) continue;
    const dx = pos[2 * e]! - ax;
    const dy = pos[2 * e + 1]! - ay;
    if (dx * dx + dy * dy <= RANGE_SQ) near++;
  }
  return near;
}
