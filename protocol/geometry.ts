/**
 * The world's geometry as every part of the game counts it: tiles, chunks, regions and the
 * world's edges. SQL counts the same way (`game_private.tile_region_index`, the generated
 * `game_players.region` column, `game_private.in_spawn`); test/server/game/rules/protocol-sql.test.ts holds
 * the two to each other.
 *
 * * A tile (tx, ty) covers the pixels [tx·32, tx·32 + 32).
 * * A chunk is the 16x16 tiles from (16·cx, 16·cy): the unit a client reads.
 * * A region is the 32x32 tiles centred on (32·rx, 32·ry): the unit heard live. Region (0, 0) is
 *   centred on spawn (pixels -512 to 511 on both axes), where everyone enters, so a crowd there
 *   lies in one region. Region edges lie on multiples of 16 tiles: each region holds 2x2 chunks.
 */

/** Edge of a tile in pixels. */
export const TILE_SIZE = 32;
/** Edge of a chunk in tiles. */
export const CHUNK_TILES = 16;
/** Edge of a region in tiles: 1024 px, wider than the 800 px view, so the 3x3 around a player covers its screen. */
export const REGION_TILES = 32;
/** Edge of a region in pixels. */
export const REGION_PX = REGION_TILES * TILE_SIZE;

/** World edge in tiles; tiles run from WORLD_MIN_TILE to WORLD_MAX_TILE on both axes. */
export const WORLD_TILES = 10_000;
/** Lowest tile coordinate. */
export const WORLD_MIN_TILE = -WORLD_TILES / 2;
/** Highest tile coordinate. */
export const WORLD_MAX_TILE = WORLD_TILES / 2 - 1;

/** Region coordinates. */
export interface Region {
  rx: number;
  ry: number;
}

/** Chunk coordinates. */
export interface ChunkCoords {
  cx: number;
  cy: number;
}

/** The region index of tile coordinate `t` on either axis (SQL's `game_private.tile_region_index`). */
export function regionIndexOfTile(t: number): number {
  return Math.floor((t + REGION_TILES / 2) / REGION_TILES);
}

/** The region index of pixel coordinate `p` on either axis (the generated `game_players.region` column). */
export function regionIndexOfPixel(p: number): number {
  return Math.floor((p + REGION_PX / 2) / REGION_PX);
}

/** The region of pixel position (x, y). */
export function regionOf(x: number, y: number): Region {
  return { rx: regionIndexOfPixel(x), ry: regionIndexOfPixel(y) };
}

/** The region of tile (x, y). */
export function regionOfTile(x: number, y: number): Region {
  return { rx: regionIndexOfTile(x), ry: regionIndexOfTile(y) };
}

/** The chunk holding tile (x, y). */
export function chunkOfTile(x: number, y: number): ChunkCoords {
  return { cx: Math.floor(x / CHUNK_TILES), cy: Math.floor(y / CHUNK_TILES) };
}

/** The tile holding pixel coordinate `p` on either axis. */
export function tileOfPixel(p: number): number {
  return Math.floor(p / TILE_SIZE);
}

/** The name of a region, `'rx:ry'`, as SQL's `game_private.tile_region` and `game_players.region` spell it. */
export function regionName({ rx, ry }: Region): string {
  return `${rx}:${ry}`;
}

/** The region a name `'rx:ry'` stands for, or null when it names none. */
export function parseRegionName(name: string): Region | null {
  const match = /^(0|-?[1-9]\d{0,14}):(0|-?[1-9]\d{0,14})$/.exec(name);
  return match ? { rx: Number(match[1]), ry: Number(match[2]) } : null;
}

/** The 3x3 regions around `centre`, the centre first, then row by row. */
export function regionsAround({ rx, ry }: Region): Region[] {
  const regions = [{ rx, ry }];
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      if (dx !== 0 || dy !== 0) regions.push({ rx: rx + dx, ry: ry + dy });
    }
  }
  return regions;
}
