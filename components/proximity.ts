/**
 * Range lookups over the spatial grid (kept by systems/index-players): the nearest target of a
 * swing and the count of players near someone. Defeated players are not in the grid.
 */
import { COMBAT_RANGE } from './constants.js';
import { cellBucket } from './grid.js';
import type { GameWorld } from './world.js';

const RANGE_SQ = COMBAT_RANGE * COMBAT_RANGE;

/**
 * Calls `visit(other, distanceSquared)` for every other indexed player within COMBAT_RANGE
 * (inclusive) of `eid`, which must be indexed itself.
 */
function forEachNear(world: GameWorld, eid: number, visit: (other: number, dSq: number) => void): void {
  const { x, y } = world.transform;
  const { head, next, cellX, cellY, mask } = world.grid;
  const ax = x[eid]!;
  const ay = y[eid]!;
  const cx = cellX[eid]!;
  const cy = cellY[eid]!;
  for (let oy = cy - 1; oy <= cy + 1; oy++) {
    for (let ox = cx - 1; ox <= cx + 1; ox++) {
      for (let e = head[cellBucket(ox, oy, mask)]!; e !== 0; e = next[e]!) {
        // A bucket may hold other cells that hash alike; take each player only from its own cell.
        if (e === eid || cellX[e] !== ox || cellY[e] !== oy) continue;
        const dSq = (x[e]! - ax) * (x[e]! - ax) + (y[e]! - ay) * (y[e]! - ay);
        if (dSq <= RANGE_SQ) visit(e, dSq);
      }
    }
  }
}

/** The nearest other player within COMBAT_RANGE of `eid` that is not in the safe zone, or 0. */
export function nearestTarget(world: GameWorld, eid: number): number {
  if (!world.grid.linked[eid]) return 0;
  const safe = world.combat.safe;
  let best = 0;
  let bestSq = Infinity;
  forEachNear(world, eid, (e, dSq) => {
    if (!safe[e] && dSq < bestSq) {
      best = e;
      bestSq = dSq;
    }
  });
  return best;
}

/** How many other players are within COMBAT_RANGE of `eid` (0 when `eid` is not indexed). */
export function countPlayersNear(world: GameWorld, eid: number): number {
  if (!world.grid.linked[eid]) return 0;
  let count = 0;
  forEachNear(world, eid, () => count++);
  return count;
}
