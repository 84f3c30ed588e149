/**
 * The `blocks` event on a blocks topic (protocol/topics.ts): the tile changes of one statement
 * in one region, as the database sends them (`game_private.send_block_changes`):
 * `{"c": [[x, y], ...], "s": [[x, y, type, owner], ...]}`, the tiles cleared (`c`) and the blocks
 * set (`s`), to be applied clears first. A statement's changes in a region travel in messages of
 * at most MAX_BLOCK_CHANGES_PER_MESSAGE changes.
 */

/** Most changes one `blocks` message carries (clears and sets together). */
export const MAX_BLOCK_CHANGES_PER_MESSAGE = 256;

/** A tile change: a block set, or (blockType null) a tile cleared. */
export interface BlockChange {
  x: number;
  y: number;
  blockType: string | null;
  /** The wallet that owns the block set; '' for a clear. */
  owner: string;
}

/** A `blocks` payload as sent. */
export interface BlockChangesPayload {
  c: Array<[number, number]>;
  s: Array<[number, number, string, string]>;
}

/** The payload of `changes`: clears in `c`, sets in `s`, each in the order given. */
export function encodeBlockChanges(changes: readonly BlockChange[]): BlockChangesPayload {
  const payload: BlockChangesPayload = { c: [], s: [] };
  for (const { x, y, blockType, owner } of changes) {
    if (blockType === null) payload.c.push([x, y]);
    else payload.s.push([x, y, blockType, owner]);
  }
  return payload;
}

const whole = (v: unknown): v is number => Number.isInteger(v);

/** The changes of a `blocks` payload, clears first; malformed entries (and other fields) are skipped. */
export function decodeBlockChanges(payload: unknown): BlockChange[] {
  const changes: BlockChange[] = [];
  if (typeof payload !== 'object' || payload === null) return changes;
  const { c, s } = payload as { c?: unknown; s?: unknown };
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
