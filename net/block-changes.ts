/**
 * Tile changes as the database broadcasts them on a region's `blocks` event, and the columns of
 * a block the engine needs.
 */

/** The columns a block read asks for: the engine needs the type and owner of each tile, nothing else. */
export const BLOCK_COLUMNS = 'x,y,block_type,player_id';

/** A tile change heard live: a block set, or (blockType null) a tile cleared. */
export interface BlockChange {
  x: number;
  y: number;
  blockType: string | null;
  owner: string;
}

/** Reads a `blocks` broadcast payload ({c: [[x, y]], s: [[x, y, type, owner]]}); malformed entries are skipped. */
export function parseBlockChanges(payload: unknown): BlockChange[] {
  const changes: BlockChange[] = [];
  if (typeof payload !== 'object' || payload === null) return changes;
  const { c, s } = payload as { c?: unknown; s?: unknown };
  const whole = (v: unknown): v is number => Number.isInteger(v);
  if (Array.isArray(c)) {
    for (const entry of c) {
      if (Array.isArray(entry) && whole(entry[0]) && whole(entry[1])) changes.push({ x: entry[0], y: entry[1], blockType: null, owner: '' });
    }
  }
  if (Array.isArray(s)) {
    for (const entry of s) {
      if (Array.isArray(entry) && whole(entry[0]) && whole(entry[1]) && typeof entry[2] === 'string' && typeof entry[3] === 'string') {
        changes.push({ x: entry[0], y: entry[1], blockType: entry[2], owner: entry[3] });
      }
    }
  }
  return changes;
}
