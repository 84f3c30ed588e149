/**
 * Where claims are read (net/claims/claims.ts): the view around the player plus a margin, read again
 * when the player nears its edge, and the rectangle of the regions whose channels joined.
 */
import type { TileRect } from '../../components/claims.js';
import type { Region } from '../../protocol/geometry.js';
import { regionTiles } from '../chunks.js';
import { VIEW_HALF_HEIGHT_TILES, VIEW_HALF_WIDTH_TILES } from '../constants.js';

/** Tiles read beyond the view on every side. */
export const CLAIM_MARGIN_TILES = 64;

/** The area read around tile `tile`: the view plus the margin on every side. */
export function claimsArea(tile: { x: number; y: number }): TileRect {
  return {
    x1: tile.x - VIEW_HALF_WIDTH_TILES - CLAIM_MARGIN_TILES,
    y1: tile.y - VIEW_HALF_HEIGHT_TILES - CLAIM_MARGIN_TILES,
    x2: tile.x + VIEW_HALF_WIDTH_TILES + CLAIM_MARGIN_TILES,
    y2: tile.y + VIEW_HALF_HEIGHT_TILES + CLAIM_MARGIN_TILES,
  };
}

/** Whether rectangles `a` and `b` share a tile. */
export function overlaps(a: TileRect, b: TileRect): boolean {
  return a.x1 <= b.x2 && a.x2 >= b.x1 && a.y1 <= b.y2 && a.y2 >= b.y1;
}

/** Whether the view around `tile` has come within half the margin of the edge of `area`. */
export function nearEdge(area: TileRect, tile: { x: number; y: number }): boolean {
  const inner = CLAIM_MARGIN_TILES / 2;
  return tile.x - VIEW_HALF_WIDTH_TILES - inner < area.x1 || tile.x + VIEW_HALF_WIDTH_TILES + inner > area.x2
    || tile.y - VIEW_HALF_HEIGHT_TILES - inner < area.y1 || tile.y + VIEW_HALF_HEIGHT_TILES + inner > area.y2;
}

/** The tiles of `regions` and everything between them, as one inclusive rectangle. */
export function regionsRect(regions: readonly Region[]): TileRect {
  const tiles = regions.map(regionTiles);
  return {
    x1: Math.min(...tiles.map((t) => t.x0)),
    y1: Math.min(...tiles.map((t) => t.y0)),
    x2: Math.max(...tiles.map((t) => t.x1)) - 1,
    y2: Math.max(...tiles.map((t) => t.y1)) - 1,
  };
}
