/** Pixel-art painting helpers: everything is drawn on a 2 px grid ("texels"). */
import type { Random } from '../../components/prng.js';
import type { Ctx2D } from './surface.js';

/** Edge of one texel in screen pixels. */
export const TEXEL = 2;

/** Fills texel rectangle (tx, ty, tw, th) of the 32 px cell whose top-left is (ox, oy). */
export function texels(ctx: Ctx2D, ox: number, oy: number, tx: number, ty: number, tw: number, th: number, color: string): void {
  ctx.fillStyle = color;
  ctx.fillRect(ox + tx * TEXEL, oy + ty * TEXEL, tw * TEXEL, th * TEXEL);
}

/** Sprinkles single texels of `color` over a 16x16-texel cell with probability `density` each. */
export function speckle(ctx: Ctx2D, ox: number, oy: number, color: string, density: number, random: Random): void {
  ctx.fillStyle = color;
  for (let ty = 0; ty < 16; ty++) {
    for (let tx = 0; tx < 16; tx++) {
      if (random() < density) ctx.fillRect(ox + tx * TEXEL, oy + ty * TEXEL, TEXEL, TEXEL);
    }
  }
}

/** A raised-block bevel: light top and left edges, dark bottom and right edges. */
export function bevel(ctx: Ctx2D, ox: number, oy: number, light: string, dark: string): void {
  texels(ctx, ox, oy, 0, 0, 16, 1, light);
  texels(ctx, ox, oy, 0, 0, 1, 16, light);
  texels(ctx, ox, oy, 0, 15, 16, 1, dark);
  texels(ctx, ox, oy, 15, 0, 1, 16, dark);
}

/** Scales a 0xRRGGBB colour's channels by `f` (below 1 darkens, above 1 lightens) as a CSS colour. */
export function shade(rgb: number, f: number): string {
  const c = (v: number) => Math.max(0, Math.min(255, Math.round(v * f)));
  return `rgb(${c((rgb >> 16) & 255)},${c((rgb >> 8) & 255)},${c(rgb & 255)})`;
}
