/** Input picking: the tile under a pointer on the canvas, placed by the same camera that draws (components/camera.ts). */
import { createCamera, followLocalPlayer, tileAtScreen, type TilePosition } from '../../components/camera.js';
import type { GameWorld } from '../../components/world.js';

/** The tile under a mouse, pen or touch event on the canvas. */
export type TilePicker = (ev: MouseEvent) => TilePosition;

/** The canvas pixel under the event's viewport point (the canvas may be drawn larger or smaller than its pixels). */
function canvasPoint(canvas: HTMLCanvasElement, ev: MouseEvent): { x: number; y: number } {
  const rect = canvas.getBoundingClientRect();
  return {
    x: ((ev.clientX - rect.left) * canvas.width) / Math.max(1, rect.width),
    y: ((ev.clientY - rect.top) * canvas.height) / Math.max(1, rect.height),
  };
}

/**
 * Picks tiles on `canvas` as `view` was last drawn: centred on the local player `alpha()` past
 * the last step.
 */
export function createTilePicker(
  canvas: HTMLCanvasElement,
  world: GameWorld,
  view: { readonly width: number; readonly height: number },
  alpha: () => number,
): TilePicker {
  const camera = createCamera();
  return (ev) => {
    const point = canvasPoint(canvas, ev);
    return tileAtScreen(followLocalPlayer(camera, world, view.width, view.height, alpha()), point.x, point.y);
  };
}
