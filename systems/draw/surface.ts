/** The drawing surfaces the renderer needs; the DOM layer supplies them, systems never create DOM nodes. */

/** A 2D context of an on-screen or offscreen canvas. */
export type Ctx2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/** A canvas the renderer can draw on and copy from. */
export interface Surface {
  width: number;
  height: number;
  getContext(kind: '2d'): Ctx2D | null;
}

/** Makes an offscreen surface of the given size in pixels. */
export type SurfaceFactory = (width: number, height: number) => Surface;

/** The 2D context of `surface`, with smoothing off for crisp pixel art. */
export function context2d(surface: Surface): Ctx2D {
  const ctx = surface.getContext('2d');
  if (!ctx) throw new Error('2D canvas context unavailable');
  ctx.imageSmoothingEnabled = false;
  return ctx;
}
