/**
 * Soft biome borders. Where two biomes meet, the one of higher BLEND_RANK spills over the edge of
 * its neighbour's tile in a ragged, dithered fringe of its own ground colours: an edge fringe
 * along each side that borders it, a corner tuft where it touches only diagonally. Everything is
 * deterministic: the fringes come from a sheet painted once from fixed random seeds, and which
 * of its variants a tile gets comes from the tile's hash, so a border looks the same on every
 * client, every frame and after every repaint. Fringes are painted into the cached chunk
 * surfaces (systems/draw/chunk-cache.ts), so they cost nothing per frame.
 */
import { TILE_SIZE } from '../../components/constants.js';
import { createRandom, hashTile } from '../../components/prng.js';
import { BIOME, BIOMES, biomeCodeAt } from '../../components/terrain.js';
import { CHUNK_TILES, type Chunk } from '../../components/tiles.js';
import { context2d, type Ctx2D, type Surface, type SurfaceFactory } from './surface.js';
import { BIOME_COLORS, BIOME_RIMS } from './terrain-sprites.js';
import { TEXEL } from './paint.js';

/** Texels along a tile's edge. */
const SIDE = TILE_SIZE / TEXEL;
/** Fringe variants per direction; a tile picks one by its hash. */
export const EDGE_VARIANTS = 3;

/**
 * Neighbour offsets by direction: the four sides (north, east, south, west), then the four
 * corners (north-east, south-east, south-west, north-west).
 */
export const EDGE_DIRS: readonly (readonly [number, number])[] = [
  [0, -1], [1, 0], [0, 1], [-1, 0],
  [1, -1], [1, 1], [-1, 1], [-1, -1],
];

/**
 * Which biome spills over which: a biome's fringe is drawn on a neighbour of lower rank. Land
 * spills over water, rough ground over soft, high over low; spawn takes no part (-1).
 */
export const BLEND_RANK: readonly number[] = (() => {
  const order = [
    BIOME.ocean, BIOME.tropicalOcean, BIOME.swamp, BIOME.wetlands, BIOME.desert, BIOME.savanna, BIOME.grassland,
    BIOME.tundra, BIOME.arctic, BIOME.jungle, BIOME.forest, BIOME.pineForest, BIOME.mountains, BIOME.snowPeaks,
  ];
  const rank = BIOMES.map(() => -1);
  order.forEach((code, i) => (rank[code] = i));
  return rank;
})();

/** Fringe texel kinds. */
const NONE = 0;
const BODY = 1;
const RIM = 2;

/**
 * The fringe of direction `dir`, variant `variant`, as 16x16 texels (row-major): BODY texels take
 * the spilling biome's ground colour, RIM texels its darker speck colour, NONE shows the tile.
 * A side fringe is 1 to 4 texels deep, changing by at most one texel from column to column, with
 * a dithered texel beyond its edge here and there; a corner tuft is a ragged quarter disc.
 */
export function fringeMask(dir: number, variant: number): Uint8Array {
  const random = createRandom(0xb10e + dir * 16 + variant);
  const mask = new Uint8Array(SIDE * SIDE);
  /** Sets texel (along, depth) measured from the fringe's side or corner. */
  const set = (along: number, depth: number, kind: number) => {
    let tx: number;
    let ty: number;
    if (dir < 4) {
      // Side fringes: `along` runs along the side, `depth` into the tile.
      [tx, ty] = dir === 0 ? [along, depth] : dir === 1 ? [SIDE - 1 - depth, along] : dir === 2 ? [along, SIDE - 1 - depth] : [depth, along];
    } else {
      // Corner tufts: `along` and `depth` are the texel's distances from the corner on x and y.
      const east = dir === 4 || dir === 5;
      const south = dir === 5 || dir === 6;
      tx = east ? SIDE - 1 - along : along;
      ty = south ? SIDE - 1 - depth : depth;
    }
    mask[ty * SIDE + tx] = kind;
  };
  if (dir < 4) {
    let depth = 1 + Math.floor(random() * 3);
    for (let along = 0; along < SIDE; along++) {
      const r = random();
      depth = Math.max(1, Math.min(4, depth + (r < 0.3 ? -1 : r > 0.7 ? 1 : 0)));
      for (let d = 0; d < depth; d++) set(along, d, d === depth - 1 ? RIM : BODY);
      if (random() < 0.35) set(along, depth + 1, RIM);
    }
  } else {
    const radius = 2.2 + random() * 1.6;
    for (let y = 0; y < 6; y++) {
      for (let x = 0; x < 6; x++) {
        const d = Math.hypot(x + 0.5, y + 0.5);
        if (d < radius - 0.8) set(x, y, BODY);
        else if (d < radius + 0.4 && random() < 0.7) set(x, y, RIM);
      }
    }
  }
  return mask;
}

/** A sheet of every fringe: row = spilling biome code, column = dir * EDGE_VARIANTS + variant. */
export function paintEdgeSheet(makeSurface: SurfaceFactory): Surface {
  const sheet = makeSurface(EDGE_DIRS.length * EDGE_VARIANTS * TILE_SIZE, BIOMES.length * TILE_SIZE);
  const ctx = context2d(sheet);
  const masks = EDGE_DIRS.map((_, dir) => Array.from({ length: EDGE_VARIANTS }, (_, v) => fringeMask(dir, v)));
  BIOMES.forEach((_, biome) => {
    if (BLEND_RANK[biome]! < 0) return;
    for (let dir = 0; dir < EDGE_DIRS.length; dir++) {
      for (let v = 0; v < EDGE_VARIANTS; v++) {
        const mask = masks[dir]![v]!;
        const ox = (dir * EDGE_VARIANTS + v) * TILE_SIZE;
        const oy = biome * TILE_SIZE;
        for (let i = 0; i < mask.length; i++) {
          if (mask[i] === NONE) continue;
          ctx.fillStyle = mask[i] === BODY ? BIOME_COLORS[biome]! : BIOME_RIMS[biome]!;
          ctx.fillRect(ox + (i % SIDE) * TEXEL, oy + Math.floor(i / SIDE) * TEXEL, TEXEL, TEXEL);
        }
      }
    }
  });
  return sheet;
}

/** One fringe to draw on a tile: the spilling biome, the direction it lies in and the variant. */
export interface Fringe {
  biome: number;
  dir: number;
  variant: number;
}

/**
 * The fringes drawn on tile (tx, ty) in drawing order, given `biomeOf` for its neighbours: a side
 * fringe for every side whose neighbour ranks higher, then a corner tuft for every corner whose
 * diagonal neighbour ranks higher and spills over neither side next to it. Lower ranks first, so
 * the highest biome's fringe ends on top.
 */
export function fringesOf(tx: number, ty: number, seed: number, biomeOf: (x: number, y: number) => number, out: Fringe[] = []): Fringe[] {
  out.length = 0;
  const own = biomeOf(tx, ty);
  const rank = BLEND_RANK[own]!;
  if (rank < 0) return out;
  const h = hashTile(tx, ty, seed ^ 0x2c1b3c6d);
  const side = [-1, -1, -1, -1];
  for (let dir = 0; dir < 4; dir++) {
    const [dx, dy] = EDGE_DIRS[dir]!;
    const other = biomeOf(tx + dx, ty + dy);
    if (BLEND_RANK[other]! > rank) {
      side[dir] = other;
      out.push({ biome: other, dir, variant: (h >>> (dir * 4)) % EDGE_VARIANTS });
    }
  }
  for (let dir = 4; dir < 8; dir++) {
    const [dx, dy] = EDGE_DIRS[dir]!;
    const other = biomeOf(tx + dx, ty + dy);
    if (BLEND_RANK[other]! <= rank) continue;
    // The sides next to the corner: north or south (dy), east or west (dx).
    const vertical = dy < 0 ? 0 : 2;
    const horizontal = dx > 0 ? 1 : 3;
    if (side[vertical] === other || side[horizontal] === other) continue;
    out.push({ biome: other, dir, variant: (h >>> (dir * 4)) % EDGE_VARIANTS });
  }
  out.sort((a, b) => BLEND_RANK[a.biome]! - BLEND_RANK[b.biome]!);
  return out;
}

/** Biome codes of a chunk and the ring of tiles around it, reused between paints. */
const ring = new Uint8Array((CHUNK_TILES + 2) * (CHUNK_TILES + 2));
const fringes: Fringe[] = [];

/**
 * Paints the fringes of chunk (cx, cy) onto its surface `ctx`, over the ground and under nothing:
 * tiles holding a block in `source` get none (the block covers the ground).
 */
export function paintChunkEdges(ctx: Ctx2D, sheet: Surface, cx: number, cy: number, seed: number, source: Chunk | undefined): void {
  const W = CHUNK_TILES + 2;
  const x0 = cx * CHUNK_TILES - 1;
  const y0 = cy * CHUNK_TILES - 1;
  for (let y = 0; y < W; y++) for (let x = 0; x < W; x++) ring[y * W + x] = biomeCodeAt(x0 + x, y0 + y, seed);
  const biomeOf = (x: number, y: number) => ring[(y - y0) * W + (x - x0)]!;
  for (let ly = 0; ly < CHUNK_TILES; ly++) {
    for (let lx = 0; lx < CHUNK_TILES; lx++) {
      if (source && source.blocks[ly * CHUNK_TILES + lx]) continue;
      const tx = x0 + 1 + lx;
      const ty = y0 + 1 + ly;
      for (const f of fringesOf(tx, ty, seed, biomeOf, fringes)) {
        ctx.drawImage(sheet as CanvasImageSource, (f.dir * EDGE_VARIANTS + f.variant) * TILE_SIZE, f.biome * TILE_SIZE, TILE_SIZE, TILE_SIZE,
          lx * TILE_SIZE, ly * TILE_SIZE, TILE_SIZE, TILE_SIZE);
      }
    }
  }
}
