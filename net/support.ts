/**
 * The support rule for blocks, decided here since SPEC.md leaves it open:
 *
 * A block on land is always supported. A block on water (ocean or tropical_ocean) is
 * supported only when a chain of blocks, each touching the next edge to edge, links it to a
 * block on land. So a bridge or a raft can grow out from the shore one block at a time, and
 * when a removal cuts a chain, the blocks left floating on water are orphans and go.
 */

/** Reads the world: whether a tile holds a block, and whether a tile's terrain is water. */
export interface SupportWorld {
  hasBlock(x: number, y: number): boolean;
  isWater(x: number, y: number): boolean;
}

/** A chain longer than this is treated as supported, to bound the search. */
export const MAX_SUPPORT_SEARCH = 4096;

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

/**
 * The blocks left without support once the block at (x, y) is gone (the world must already
 * show it removed). Returns tile coordinates; empty when every neighbour is still supported.
 */
export function orphansAfterRemoval(world: SupportWorld, x: number, y: number): Array<{ x: number; y: number }> {
  const orphans: Array<{ x: number; y: number }> = [];
  const decided = new Set<string>();
  for (const [dx, dy] of NEIGHBOURS) {
    const start = { x: x + dx, y: y + dy };
    const startKey = `${start.x},${start.y}`;
    if (decided.has(startKey) || !world.hasBlock(start.x, start.y)) continue;
    const component = floodBlocks(world, start);
    for (const tile of component.tiles) decided.add(`${tile.x},${tile.y}`);
    if (!component.supported) orphans.push(...component.tiles);
  }
  return orphans;
}

/** Walks the chain of blocks from `start` until it finds land or runs out of blocks. */
function floodBlocks(world: SupportWorld, start: { x: number; y: number }) {
  const seen = new Set<string>([`${start.x},${start.y}`]);
  const tiles = [start];
  for (let i = 0; i < tiles.length; i++) {
    const tile = tiles[i]!;
    if (!world.isWater(tile.x, tile.y) || tiles.length > MAX_SUPPORT_SEARCH) return { supported: true, tiles };
    for (const [dx, dy] of NEIGHBOURS) {
      const next = { x: tile.x + dx, y: tile.y + dy };
      const key = `${next.x},${next.y}`;
      if (seen.has(key) || !world.hasBlock(next.x, next.y)) continue;
      seen.add(key);
      tiles.push(next);
    }
  }
  return { supported: false, tiles };
}
