/**
 * Range lookups over the spatial grid (kept by systems/index-players): the nearest target of a
 * swing and the count of players near someone. Defeated players are not in the grid. Both scan
 * the 2x2 cells under the box one range around the player; a bucket may also hold other cells
 * that hash alike, so each candidate is taken only from its own cell.
 */
import { COMBAT_RANGE } from './constants.js';
import { BUCKET_INTS, GRID_CELL, HASH_Y, INLINE_SLOTS, KEY_BITS, KEY_MASK, KEY_OFFSET, NO_CELL, OVERFLOW_HEAD } from './grid.js';
import type { GameWorld } from './world.js';

// Module-local copies: hot loops read these on every candidate.
const RANGE = COMBAT_RANGE;
const RANGE_SQ = RANGE * RANGE;
const INV_CELL = 1 / GRID_CELL;
const OFFSET = KEY_OFFSET;
const BITS = KEY_BITS;
const MASK = KEY_MASK;
const HASH = HASH_Y;
const STRIDE = BUCKET_INTS;
const INLINE_END = 2 * INLINE_SLOTS;
const OVERFLOW = OVERFLOW_HEAD;

let bestSq = 0;
let best = 0;

function consider(e: number, eid: number, ax: number, ay: number, x: Float32Array, y: Float32Array, safe: Uint8Array): void {
  if (e === eid) return;
  const dx = x[e]! - ax;
  const dy = y[e]! - ay;
  const dSq = dx * dx + dy * dy;
  // Equal distances go to the lower eid, so the choice does not depend on bucket order.
  if ((dSq < bestSq || (dSq === bestSq && e < best)) && !safe[e]) {
    best = e;
    bestSq = dSq;
  }
}

/** The nearest other player within COMBAT_RANGE (inclusive) of `eid` that is not in the safe zone, or 0. */
export function nearestTarget(world: GameWorld, eid: number): number {
  const { buckets, cell, next, mask } = world.grid;
  if (cell[eid] === NO_CELL) return 0;
  const { x, y } = world.transform;
  const safe = world.combat.safe;
  const ax = x[eid]!;
  const ay = y[eid]!;
  const kx = Math.floor((ax - RANGE) * INV_CELL) + OFFSET;
  const ky = Math.floor((ay - RANGE) * INV_CELL) + OFFSET;
  best = 0;
  bestSq = RANGE_SQ + 1;
  for (let oy = ky; oy <= ky + 1; oy++) {
    const row = (oy & MASK) << BITS;
    const rowHash = Math.imul(oy & MASK, HASH);
    for (let ox = kx; ox <= kx + 1; ox++) {
      const k = row | (ox & MASK);
      const b = ((rowHash + (ox & MASK)) & mask) * STRIDE;
      for (let s = b; s < b + INLINE_END; s += 2) {
        if (buckets[s] !== 0 && buckets[s + 1] === k) consider(buckets[s]!, eid, ax, ay, x, y, safe);
      }
      for (let e = buckets[b + OVERFLOW]!; e !== 0; e = next[e]!) {
        if (cell[e] === k) consider(e, eid, ax, ay, x, y, safe);
      }
    }
  }
  return best;
}

let near = 0;

function count(e: number, eid: number, ax: number, ay: number, x: Float32Array, y: Float32Array): void {
  if (e === eid) return;
  const dx = x[e]! - ax;
  const dy = y[e]! - ay;
  if (dx * dx + dy * dy <= RANGE_SQ) near++;
}

/** How many other players are within COMBAT_RANGE (inclusive) of `eid`; 0 when `eid` is not indexed. */
export function countPlayersNear(world: GameWorld, eid: number): number {
  const { buckets, cell, next, mask } = world.grid;
  if (cell[eid] === NO_CELL) return 0;
  const { x, y } = world.transform;
  const ax = x[eid]!;
  const ay = y[eid]!;
  const kx = Math.floor((ax - RANGE) * INV_CELL) + OFFSET;
  const ky = Math.floor((ay - RANGE) * INV_CELL) + OFFSET;
  near = 0;
  for (let oy = ky; oy <= ky + 1; oy++) {
    const row = (oy & MASK) << BITS;
    const rowHash = Math.imul(oy & MASK, HASH);
    for (let ox = kx; ox <= kx + 1; ox++) {
      const k = row | (ox & MASK);
      const b = ((rowHash + (ox & MASK)) & mask) * STRIDE;
      for (let s = b; s < b + INLINE_END; s += 2) {
        if (buckets[s] !== 0 && buckets[s + 1] === k) count(buckets[s]!, eid, ax, ay, x, y);
      }
      for (let e = buckets[b + OVERFLOW]!; e !== 0; e = next[e]!) {
        if (cell[e] === k) count(e, eid, ax, ay, x, y);
      }
    }
  }
  return near;
}
