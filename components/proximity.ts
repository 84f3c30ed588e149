/**
 * Range lookups over the spatial grid (kept by systems/index-players): the nearest target of a
 * swing and the count of players near someone. Defeated players are not in the grid. Both scan
 * the 3x3 cells around the player; a bucket may also hold other cells that hash alike, so each
 * candidate is taken only from its own cell.
 */
import { COMBAT_RANGE } from './constants.js';
import { cellBucket } from './grid.js';
import type { GameWorld } from './world.js';

const RANGE_SQ = COMBAT_RANGE * COMBAT_RANGE;

/** The nearest other player within COMBAT_RANGE (inclusive) of `eid` that is not in the safe zone, or 0. */
export function nearestTarget(world: GameWorld, eid: number): number {
  const { head, next, cellX, cellY, mask, linked } = world.grid;
  if (!linked[eid]) return 0;
  const { x, y } = world.transform;
  const safe = world.combat.safe;
  const ax = x[eid]!;
  const ay = y[eid]!;
  const cx = cellX[eid]!;
  const cy = cellY[eid]!;
  let best = 0;
  let bestSq = RANGE_SQ + 1;
  for (let oy = cy - 1; oy <= cy + 1; oy++) {
    for (let ox = cx - 1; ox <= cx + 1; ox++) {
      for (let e = head[cellBucket(ox, oy, mask)]!; e !== 0; e = next[e]!) {
        if (e === eid || safe[e] || cellX[e] !== ox || cellY[e] !== oy) continue;
        const dx = x[e]! - ax;
        const dy = y[e]! - ay;
        const dSq = dx * dx + dy * dy;
        if (dSq < bestSq) {
          best = e;
          bestSq = dSq;
        }
      }
    }
  }
  return best;
}

/** How many other players are within COMBAT_RANGE (inclusive) of `eid`; 0 when `eid` is not indexed. */
export function countPlayersNear(world: GameWorld, eid: number): number {
  const { head, next, cellX, cellY, mask, linked } = world.grid;
  if (!linked[eid]) return 0;
  const { x, y } = world.transform;
  const ax = x[eid]!;
  const ay = y[eid]!;
  const cx = cellX[eid]!;
  const cy = cellY[eid]!;
  let count = 0;
  for (let oy = cy - 1; oy <= cy + 1; oy++) {
    for (let ox = cx - 1; ox <= cx + 1; ox++) {
      for (let e = head[cellBucket(ox, oy, mask)]!; e !== 0; e = next[e]!) {
        if (e === eid || cellX[e] !== ox || cellY[e] !== oy) continue;
        const dx = x[e]! - ax;
        const dy = y[e]! - ay;
        if (dx * dx + dy * dy <= RANGE_SQ) count++;
      }
    }
  }
  return count;
}
