/**
 * Rendered chunks: the ground and blocks of a 16x16-tile chunk drawn once onto an offscreen
 * surface and reused every frame until a block in it changes. Least recently used chunks are
 * dropped beyond a fixed budget, and their surfaces reused.
 */
import { TILE_SIZE } from '../../components/constants.js';
import { hashTile } from '../../components/prng.js';
import { biomeCodeAt } from '../../components/terrain.js';
import { CHUNK_TILES, getChunk, type Chunk, type TileStore } from '../../components/tiles.js';
import { paintChunkEdges, paintEdgeSheet } from './biome-edges.js';
import { drawBlock } from './block-sprites.js';
import { context2d, type Surface, type SurfaceFactory } from './surface.js';
import { DECOR_CHANCE, DECOR_COUNT, GROUND_VARIANTS, IS_WATER } from './terrain-sprites.js';

/** Edge of a rendered chunk in pixels. */
export const CHUNK_PX = CHUNK_TILES * TILE_SIZE;
const BUDGET = 24;

/** One rendered chunk. `water` lists the chunk-local tile indices of water tiles, for the wave overlay. */
export interface RenderedChunk {
  surface: Surface;
  source: Chunk | undefined;
  version: number;
  water: Uint16Array;
  usedAt: number;
}

/** Rendered chunks by chunk key, plus the sprite sheets they are drawn from. */
export interface ChunkCache {
  chunks: Map<string, RenderedChunk>;
  makeSurface: SurfaceFactory;
  terrain: Surface;
  blocks: Surface;
  /** Fringes of soft biome borders (systems/draw/biome-edges.ts). */
  edges: Surface;
  clock: number;
}

/** An empty cache drawing from the given sheets. */
export function createChunkCache(makeSurface: SurfaceFactory, terrain: Surface, blocks: Surface): ChunkCache {
  return { chunks: new Map(), makeSurface, terrain, blocks, edges: paintEdgeSheet(makeSurface), clock: 0 };
}

function paint(cache: ChunkCache, rc: RenderedChunk, cx: number, cy: number, seed: number): void {
  const ctx = context2d(rc.surface);
  const water: number[] = [];
  const source = rc.source;
  for (let ly = 0; ly < CHUNK_TILES; ly++) {
    for (let lx = 0; lx < CHUNK_TILES; lx++) {
      const tx = cx * CHUNK_TILES + lx;
      const ty = cy * CHUNK_TILES + ly;
      const biome = biomeCodeAt(tx, ty, seed);
      const h = hashTile(tx, ty, seed);
      const decorated = (h & 0xffff) / 0x10000 < DECOR_CHANCE[biome]!;
      const col = decorated ? GROUND_VARIANTS + ((h >>> 16) % DECOR_COUNT[biome]!) : (h >>> 16) % GROUND_VARIANTS;
      const px = lx * TILE_SIZE;
      const py = ly * TILE_SIZE;
      ctx.drawImage(cache.terrain as CanvasImageSource, col * TILE_SIZE, biome * TILE_SIZE, TILE_SIZE, TILE_SIZE, px, py, TILE_SIZE, TILE_SIZE);
      const code = source ? source.blocks[ly * CHUNK_TILES + lx]! : 0;
      if (code) drawBlock(ctx, cache.blocks, code, px, py);
      else if (IS_WATER[biome]) water.push(ly * CHUNK_TILES + lx);
    }
  }
  paintChunkEdges(ctx, cache.edges, cx, cy, seed, source);
  rc.water = Uint16Array.from(water);
}

function evict(cache: ChunkCache): Surface | undefined {
  if (cache.chunks.size < BUDGET) return undefined;
  let oldestKey = '';
  let oldest = Infinity;
  for (const [key, rc] of cache.chunks) {
    if (rc.usedAt < oldest) {
      oldest = rc.usedAt;
      oldestKey = key;
    }
  }
  const surface = cache.chunks.get(oldestKey)!.surface;
  cache.chunks.delete(oldestKey);
  return surface;
}

/** The rendered chunk (cx, cy), painted now if it is new or a block in it changed. */
export function renderedChunk(cache: ChunkCache, store: TileStore, cx: number, cy: number, seed: number): RenderedChunk {
  const key = `${cx},${cy}`;
  const source = getChunk(store, cx, cy);
  let rc = cache.chunks.get(key);
  if (!rc) {
    const surface = evict(cache) ?? cache.makeSurface(CHUNK_PX, CHUNK_PX);
    rc = { surface, source, version: -1, water: new Uint16Array(0), usedAt: 0 };
    cache.chunks.set(key, rc);
  }
  if (rc.version === -1 || rc.source !== source || (source && rc.version !== source.version)) {
    rc.source = source;
    rc.version = source ? source.version : 0;
    paint(cache, rc, cx, cy, seed);
  }
  rc.usedAt = ++cache.clock;
  return rc;
}
