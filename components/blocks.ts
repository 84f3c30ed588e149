/** The engine's block codes: code = index + 1 in BLOCK_TYPES (protocol/rules.ts, in inventory order); 0 means no block. */
import { BLOCK_TYPES } from '../protocol/rules.js';

export { BLOCK_TYPES } from '../protocol/rules.js';

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
