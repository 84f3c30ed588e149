/** The claim tool's gestures: a mouse drag, or two taps, choose the rectangle to claim (tiles). */
import type { TilePosition } from '../../components/camera.js';
import { rectBetween, type ClaimTool } from '../../components/claims.js';

/** A drag with the claim tool starts at `tile`: a 1x1 rectangle so far. */
export function startClaimDrag(tool: ClaimTool, tile: TilePosition): void {
  tool.anchor = { x: tile.tileX, y: tile.tileY };
  tool.draft = rectBetween(tool.anchor, tool.anchor);
}

/** The drag reaches `tile`: the rectangle spans from the first corner to it. */
export function dragClaimTo(tool: ClaimTool, tile: TilePosition): void {
  if (tool.anchor) tool.draft = rectBetween(tool.anchor, { x: tile.tileX, y: tile.tileY });
}

/** The drag ends on `tile`: the rectangle is chosen and the next press starts a new one. */
export function endClaimDrag(tool: ClaimTool, tile: TilePosition): void {
  dragClaimTo(tool, tile);
  tool.anchor = null;
}

/** A tap with the claim tool: the first sets one corner, the second the opposite one; a third starts again. */
export function tapClaimCorner(tool: ClaimTool, tile: TilePosition): void {
  if (tool.anchor) endClaimDrag(tool, tile);
  else startClaimDrag(tool, tile);
}
