/**
 * Player-placed blocks in a chunked store: one Uint16Array of block codes per 16x16-tile chunk,
 * keyed by an integer chunk index, so the hot path never builds 'x,y' strings. Block type names
 * and owners are interned; names the engine does not know keep their own code (drawn as dirt).
 */
import { CHUNK_TILES, WORLD_MAX_TILE, WORLD_MIN_TILE } from '../protocol/geometry.js';
import { BLOCK_TYPES, NO_BLOCK } from './blocks.js';

export { CHUNK_TILES } from '../protocol/geometry.js';
const CHUNK_SHIFT = Math.log2(CHUNK_TILES);
const CHUNK_MASK = CHUNK_TILES - 1;
const CHUNK_SPAN = 1024;
const CHUNK_OFFSET = CHUNK_SPAN / 2;

/** One chunk: block codes and owner codes by `localY * 16 + localX`, and an edit counter. */
export interface Chunk {
  blocks: Uint16Array;
  owners: Uint32Array;
  count: number;
  version: number;
}

/** The block store of one world. */
export interface TileStore {
  chunks: Map<number, Chunk>;
  /** Block type names by code; codes 1-16 are BLOCK_TYPES, later ones were learned from the server. */
  typeNames: string[];
  typeCodes: Map<string, number>;
  ownerNames: string[];
  ownerCodes: Map<string, number>;
}

/** An empty block store. */
export function createTileStore(): TileStore {
  const typeNames = ['', ...BLOCK_TYPES];
  return {
    chunks: new Map(),
    typeNames,
    typeCodes: new Map(typeNames.map((name, i) => [name, i])),
    ownerNames: [''],
    ownerCodes: new Map([['', 0]]),
  };
}

/** Integer key of the chunk holding chunk coordinates (cx, cy). */
export function chunkKey(cx: number, cy: number): number {
  return (cx + CHUNK_OFFSET) * CHUNK_SPAN + (cy + CHUNK_OFFSET);
}

/** Whether tile (x, y) lies inside the world. */
export function isInWorld(tileX: number, tileY: number): boolean {
  return tileX >= WORLD_MIN_TILE && tileX <= WORLD_MAX_TILE && tileY >= WORLD_MIN_TILE && tileY <= WORLD_MAX_TILE;
}

function intern(names: string[], codes: Map<string, number>, name: string): number {
  let c = codes.get(name);
  if (c === undefined) {
    c = names.length;
    names.push(name);
    codes.set(name, c);
  }
  return c;
}

/** The chunk at chunk coordinates (cx, cy), or undefined when nothing was ever placed there. */
export function getChunk(store: TileStore, cx: number, cy: number): Chunk | undefined {
  return store.chunks.get(chunkKey(cx, cy));
}

/** Block code at tile (x, y); NO_BLOCK when empty. */
export function blockCodeAt(store: TileStore, tileX: number, tileY: number): number {
  const chunk = store.chunks.get(chunkKey(tileX >> CHUNK_SHIFT, tileY >> CHUNK_SHIFT));
  return chunk ? chunk.blocks[((tileY & CHUNK_MASK) << CHUNK_SHIFT) | (tileX & CHUNK_MASK)]! : NO_BLOCK;
}

/** Block type name at tile (x, y), or null when empty. */
export function blockAt(store: TileStore, tileX: number, tileY: number): string | null {
  const c = blockCodeAt(store, tileX, tileY);
  return c === NO_BLOCK ? null : store.typeNames[c]!;
}

/** Owner (player id) of the block at tile (x, y), or null when empty or unknown. */
export function blockOwnerAt(store: TileStore, tileX: number, tileY: number): string | null {
  const chunk = store.chunks.get(chunkKey(tileX >> CHUNK_SHIFT, tileY >> CHUNK_SHIFT));
  if (!chunk) return null;
  const i = ((tileY & CHUNK_MASK) << CHUNK_SHIFT) | (tileX & CHUNK_MASK);
  return chunk.blocks[i] === NO_BLOCK ? null : store.ownerNames[chunk.owners[i]!] || null;
}

/** Puts a block of `blockType` owned by `owner` at tile (x, y), replacing any block there. Tiles outside the world are ignored. */
export function setBlock(store: TileStore, tileX: number, tileY: number, blockType: string, owner: string): void {
  if (!isInWorld(tileX, tileY)) return;
  const key = chunkKey(tileX >> CHUNK_SHIFT, tileY >> CHUNK_SHIFT);
  let chunk = store.chunks.get(key);
  if (!chunk) {
    chunk = { blocks: new Uint16Array(CHUNK_TILES * CHUNK_TILES), owners: new Uint32Array(CHUNK_TILES * CHUNK_TILES), count: 0, version: 0 };
    store.chunks.set(key, chunk);
  }
  const i = ((tileY & CHUNK_MASK) << CHUNK_SHIFT) | (tileX & CHUNK_MASK);
  if (chunk.blocks[i] === NO_BLOCK) chunk.count++;
  chunk.blocks[i] = intern(store.typeNames, store.typeCodes, blockType);
  chunk.owners[i] = intern(store.ownerNames, store.ownerCodes, owner);
  chunk.version++;
}

/** Removes the block at tile (x, y); returns its type name, or null when the tile was empty. */
export function clearBlock(store: TileStore, tileX: number, tileY: number): string | null {
  const key = chunkKey(tileX >> CHUNK_SHIFT, tileY >> CHUNK_SHIFT);
  const chunk = store.chunks.get(key);
  if (!chunk) return null;
  const i = ((tileY & CHUNK_MASK) << CHUNK_SHIFT) | (tileX & CHUNK_MASK);
  const c = chunk.blocks[i]!;
  if (c === NO_BLOCK) return null;
  chunk.blocks[i] = NO_BLOCK;
  chunk.owners[i] = 0;
  chunk.version++;
  if (--chunk.count === 0) store.chunks.delete(key);
  return store.typeNames[c]!;
}

/**
 * Removes every block of the tiles [x, x + width) x [y, y + height): the chunks it covers whole
 * are forgotten, so a store whose areas are dropped holds only the chunks still in use.
 */
export function clearArea(store: TileStore, x: number, y: number, width: number, height: number): void {
  const x1 = x + width;
  const y1 = y + height;
  for (let cy = y >> CHUNK_SHIFT; cy <= (y1 - 1) >> CHUNK_SHIFT; cy++) {
    for (let cx = x >> CHUNK_SHIFT; cx <= (x1 - 1) >> CHUNK_SHIFT; cx++) {
      const key = chunkKey(cx, cy);
      const chunk = store.chunks.get(key);
      if (!chunk) continue;
      const left = cx << CHUNK_SHIFT;
      const top = cy << CHUNK_SHIFT;
      if (x <= left && y <= top && x1 >= left + CHUNK_TILES && y1 >= top + CHUNK_TILES) {
        store.chunks.delete(key);
        continue;
      }
      for (let ty = Math.max(y, top); ty < Math.min(y1, top + CHUNK_TILES); ty++) {
        for (let tx = Math.max(x, left); tx < Math.min(x1, left + CHUNK_TILES); tx++) clearBlock(store, tx, ty);
      }
    }
  }
}
