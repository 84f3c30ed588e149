/** The game canvas as a drawing view: its 2D context, and in the touch layout its size following its box. */
import { createDrawView, type DrawView } from '../../systems/draw/draw-world.js';
import type { Unlisten } from './listen.js';

/** The view drawing on `canvas`; sprite sheets and chunk surfaces are offscreen canvases. */
export function createCanvasView(canvas: HTMLCanvasElement): DrawView {
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('2D canvas context unavailable');
  return createDrawView(ctx, canvas.width, canvas.height, (w, h) => {
    const surface = document.createElement('canvas');
    surface.width = w;
    surface.height = h;
    return surface;
  });
}

/**
 * The touch layout: the canvas keeps as many pixels as its box has CSS pixels (1 tile = 32 px on
 * screen), and `view` the same size. Returns the function that stops following the box.
 */
export function fitCanvasToBox(canvas: HTMLCanvasElement, view: DrawView): Unlisten {
  const fit = () => {
    const width = Math.max(1, Math.round(canvas.clientWidth));
    const height = Math.max(1, Math.round(canvas.clientHeight));
    if (canvas.width === width && canvas.height === height) return;
    canvas.width = view.width = width;
    canvas.height = view.height = height;
    view.ctx.imageSmoothingEnabled = false;
  };
  const observer = new ResizeObserver(fit);
  observer.observe(canvas);
  return () => observer.disconnect();
}
