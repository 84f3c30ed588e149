/**
 * The player's edits handed to the server and not answered yet (net/outbox.ts), by tile: a chunk
 * read shows them over the rows it got, so an edit kept while the connection is away, or one
 * still on its way, is not undone on screen by a read made before the server has it. At most
 * one entry per tile; the outbox bounds how many edits wait (MAX_UNSENT_EDITS).
 */

/** A block as a chunk read hands it to the engine. */
export interface ShownBlock {
  x: number;
  y: number;
  blockType: string;
  owner: string;
}

/** The edits on their way. */
export interface UnsentEdits {
  /** An edit of tile (x, y) to `blockType` (null: removed) is on its way; the latest one is shown. */
  hold(x: number, y: number, blockType: string | null): void;
  /** One edit of tile (x, y) was answered (taken, refused) or given up. */
  release(x: number, y: number): void;
  /** `blocks`, read from tiles [x0, x1) x [y0, y1), with the edits on their way there shown over them. */
  over(blocks: readonly ShownBlock[], area: { x0: number; y0: number; x1: number; y1: number }): ShownBlock[];
}

/** None yet; placements are shown as blocks of `playerId`. */
export function createUnsentEdits(playerId: string): UnsentEdits {
  const tiles = new Map<string, { x: number; y: number; blockType: string | null; edits: number }>();
  return {
    hold(x, y, blockType) {
      const key = `${x},${y}`;
      const entry = tiles.get(key);
      tiles.set(key, { x, y, blockType, edits: (entry?.edits ?? 0) + 1 });
    },
    release(x, y) {
      const key = `${x},${y}`;
      const entry = tiles.get(key);
      if (entry && --entry.edits <= 0) tiles.delete(key);
    },
    over(blocks, { x0, y0, x1, y1 }) {
      if (tiles.size === 0) return [...blocks];
      const inside = [...tiles.values()].filter(({ x, y }) => x >= x0 && x < x1 && y >= y0 && y < y1);
      if (inside.length === 0) return [...blocks];
      const edited = new Set(inside.map(({ x, y }) => `${x},${y}`));
      const shown = blocks.filter(({ x, y }) => !edited.has(`${x},${y}`));
      for (const { x, y, blockType } of inside) if (blockType !== null) shown.push({ x, y, blockType, owner: playerId });
      return shown;
    },
  };
}
