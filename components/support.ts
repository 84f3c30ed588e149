/**
 * The support rule for blocks (the server enforces it: supabase/migrations/20250201000400_position_bound.sql):
 *
 * A block on land is always supported. A block on water (ocean or tropical_ocean, decided by
 * isWaterTile in components/terrain.ts) is supported only when a chain of blocks, each touching
 * the next edge to edge, links it to a block on land. So a bridge or a raft can grow out from the
 * shore one block at a time, and when a removal cuts a chain, the server removes the blocks left
 * floating in the same transaction. The engine checks the placement half before it places a block
 * (systems/apply-builds.ts), so an unsupported block is neither shown nor sent.
 */

/** Reads the world: whether a tile holds a block, and whether a tile's terrain is water. */
export interface SupportWorld {
  hasBlock(x: number, y: number): boolean;
  isWater(x: number, y: number): boolean;
}

/** What the player is told when a placement is refused for want of support (by the engine or the server). */
export const UNSUPPORTED_BLOCK = 'Blocks on water need a neighbouring block that leads to land.';

const NEIGHBOURS: ReadonlyArray<readonly [number, number]> = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
];

/** Whether a new block at (x, y) would be supported: on land, or touching another block. */
export function canPlaceWithSupport(world: SupportWorld, x: number, y: number): boolean {
  if (!world.isWater(x, y)) return true;
  return NEIGHBOURS.some(([dx, dy]) => world.hasBlock(x + dx, y + dy));
}
