/**
 * The one camera: the view is centred on the local player as drawn, its top-left corner at whole
 * world pixels, 1 world pixel per canvas pixel. Drawing, picking the tile under the pointer and
 * the browser tests all place the view with these functions. Pure: no DOM, no drawing.
 */
import { TILE_SIZE } from './constants.js';
import { interpolatedPosition } from './transform.js';
import type { GameWorld } from './world.js';

/** The view's top-left corner in world pixels: screen (0, 0) shows world (x, y). */
export interface Camera {
  x: number;
  y: number;
}

/** A tile's coordinates (`tileX`, `tileY`), in tiles. */
export interface TilePosition {
  tileX: number;
  tileY: number;
}

/** A camera at the world origin, to be moved by {@link centreCamera} or {@link followLocalPlayer}. */
export function createCamera(): Camera {
  return { x: 0, y: 0 };
}

/** Places `camera` so that a `width` x `height` view is centred on world point (x, y); returns it. */
export function centreCamera(camera: Camera, x: number, y: number, width: number, height: number): Camera {
  camera.x = Math.round(x - width / 2);
  camera.y = Math.round(y - height / 2);
  return camera;
}

/** Scratch for the local player's drawn position, so following it allocates nothing. */
const target = { x: 0, y: 0 };

/**
 * Places `camera` on the local player as drawn `alpha` (0..1) past the last step, or on the
 * origin without one, for a `width` x `height` view; returns it.
 */
export function followLocalPlayer(camera: Camera, world: GameWorld, width: number, height: number, alpha: number): Camera {
  if (world.local) interpolatedPosition(world.transform, world.local, alpha, target);
  else target.x = target.y = 0;
  return centreCamera(camera, target.x, target.y, width, height);
}

/** The tile under screen pixel (screenX, screenY). */
export function tileAtScreen(camera: Camera, screenX: number, screenY: number): TilePosition {
  return { tileX: Math.floor((camera.x + screenX) / TILE_SIZE), tileY: Math.floor((camera.y + screenY) / TILE_SIZE) };
}

/** The screen pixel showing the centre of tile (tileX, tileY). */
export function tileCentreOnScreen(camera: Camera, tileX: number, tileY: number): { x: number; y: number } {
  return { x: tileX * TILE_SIZE + TILE_SIZE / 2 - camera.x, y: tileY * TILE_SIZE + TILE_SIZE / 2 - camera.y };
}
