/**
 * The tiles whose block is the local player's, as last heard. A live removal carries only the
 * tile, so this is how a removal of the player's block is recognised.
 */
import { CHUNK_TILES, type ChunkCoords } from '../../protocol/geometry.js';

/** The player's own tiles. */
export interface OwnBlocks {
  /** Tile (x, y) now holds a block of `owner`, or (null) nothing: a block of the player's removed is told. */
  note(x: number, y: number, owner: string | null): void;
  /** Forgets tile (x, y) without telling of a removal (the server's answer to a refusal says it is empty). */
  forgetTile(x: number, y: number): void;
  /** Forgets the tiles of a chunk (the chunk is dropped, or read again). */
  forgetChunk(chunk: ChunkCoords): void;
}

/** None yet; `onOwnRemoved` is told when a block of player `playerId` is removed. */
export function createOwnBlocks(playerId: string, onOwnRemoved?: () => void): OwnBlocks {
  const own = new Set<string>();
  return {
    note(x, y, owner) {
      if (owner === playerId) own.add(`${x},${y}`);
      else if (own.delete(`${x},${y}`) && owner === null) onOwnRemoved?.();
    },
    forgetTile(x, y) {
      own.delete(`${x},${y}`);
    },
    forgetChunk({ cx, cy }) {
      for (const tile of own) {
        const [tx, ty] = tile.split(',').map(Number) as [number, number];
        if (Math.floor(tx / CHUNK_TILES) === cx && Math.floor(ty / CHUNK_TILES) === cy) own.delete(tile);
      }
    },
  };
}
