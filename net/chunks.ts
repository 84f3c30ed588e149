/**
 * What a client reads and hears of the world by place (blocks and land claims), in the
 * protocol's units (protocol/geometry.ts):
 *
 * * A chunk is the unit read: its 16x16 tiles by a primary-key range
 *   (`x >= a and x < a + 16 and y >= b and y < b + 16`). 16 tiles is the engine's own chunk too,
 *   so a chunk read or dropped is one engine chunk; the 800x600 view lies across 2x2 to 3x3 of
 *   them (at most 2,304 rows), where 32-tile chunks would read up to 4,096.
 * * A region is the unit heard: its blocks topic (protocol/topics.ts), the same squares as the
 *   presence regions (net/interest/centre.ts). Each region holds exactly 2x2 chunks.
 */
import { CHUNK_TILES, REGION_TILES, regionOfTile, TILE_SIZE, type ChunkCoords, type Region } from '../protocol/geometry.js';

/** A rectangle of tiles: [x0, x1) x [y0, y1). */
export interface TileRect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The name of a chunk in maps and logs: 'cx:cy'. */
export function chunkName(cx: number, cy: number): string {
  return `${cx}:${cy}`;
}

/** The tiles of chunk (cx, cy). */
export function chunkTiles(cx: number, cy: number): TileRect {
  return { x0: cx * CHUNK_TILES, y0: cy * CHUNK_TILES, x1: (cx + 1) * CHUNK_TILES, y1: (cy + 1) * CHUNK_TILES };
}

/** The tiles of region `region`. */
export function regionTiles({ rx, ry }: Region): TileRect {
  const half = REGION_TILES / 2;
  return { x0: rx * REGION_TILES - half, y0: ry * REGION_TILES - half, x1: rx * REGION_TILES + half, y1: ry * REGION_TILES + half };
}

/** The region that holds chunk (cx, cy) (each region holds 2x2 chunks). */
export function regionOfChunk(cx: number, cy: number): Region {
  return regionOfTile(cx * CHUNK_TILES, cy * CHUNK_TILES);
}

/**
 * The chunks that a view of `halfWidth` x `halfHeight` pixels around pixel (x, y), widened by
 * `margin` pixels on every side, touches, the chunks in view first, nearest to
 * (x, y) first, then those of the margin in the order the view would reach them.
 */
export function chunksAround(x: number, y: number, halfWidth: number, halfHeight: number, margin: number): ChunkCoords[] {
  const chunkPx = CHUNK_TILES * TILE_SIZE;
  const cx0 = Math.floor((x - halfWidth - margin) / chunkPx);
  const cx1 = Math.floor((x + halfWidth + margin - 1) / chunkPx);
  const cy0 = Math.floor((y - halfHeight - margin) / chunkPx);
  const cy1 = Math.floor((y + halfHeight + margin - 1) / chunkPx);
  const chunks: Array<ChunkCoords & { d: number }> = [];
  for (let cy = cy0; cy <= cy1; cy++) {
    for (let cx = cx0; cx <= cx1; cx++) {
      const dx = Math.max(cx * chunkPx - x, 0, x - (cx + 1) * chunkPx);
      const dy = Math.max(cy * chunkPx - y, 0, y - (cy + 1) * chunkPx);
      // Chunks in view by their distance; then the margin's by how far the view is from reaching them.
      const inView = dx < halfWidth && dy < halfHeight;
      chunks.push({ cx, cy, d: inView ? Math.hypot(dx, dy) : 1e9 + Math.max(dx - halfWidth, dy - halfHeight) });
    }
  }
  chunks.sort((a, b) => a.d - b.d);
  return chunks.map(({ cx, cy }) => ({ cx, cy }));
}
