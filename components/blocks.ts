/** The 16 block types of docs/game-rules.md §3, in inventory order. Code = index + 1; 0 means no block. */
export const BLOCK_TYPES = [
  'stone', 'wood', 'brick', 'dirt', 'gold', 'iron', 'diamond', 'emerald',
  'coal', 'obsidian', 'glass', 'sand', 'cobblestone', 'marble', 'copper', 'redstone',
] as const;

/** A known block type name. */
export type BlockType = (typeof BLOCK_TYPES)[number];

/** Tile code of an empty tile. */
export const NO_BLOCK = 0;
/** Tile code of dirt, which is also how unknown types are drawn. */
export const DIRT_CODE = BLOCK_TYPES.indexOf('dirt') + 1;

/** Whether `code` is one of the 16 known block types. */
export function isKnownBlockCode(code: number): boolean {
  return code >= 1 && code <= BLOCK_TYPES.length;
}

/** Display name of a block type: 'cobblestone' -> 'Cobblestone'. */
export function blockDisplayName(blockType: string): string {
  return blockType.charAt(0).toUpperCase() + blockType.slice(1);
}
