/** The 16 block types, each painted once into a sprite sheet (one 32 px cell per type, in code order). */
import { BLOCK_TYPES, DIRT_CODE, isKnownBlockCode } from '../../components/blocks.js';
import { TILE_SIZE } from '../../components/constants.js';
import { createRandom, type Random } from '../../components/prng.js';
import { bevel, speckle, texels } from './paint.js';
import { context2d, type Ctx2D, type Surface, type SurfaceFactory } from './surface.js';

type Painter = (ctx: Ctx2D, ox: number, oy: number, random: Random) => void;

function ore(base: string, fleck: string, gem: string, gemLight: string): Painter {
  return (ctx, ox, oy, random) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, base);
    speckle(ctx, ox, oy, fleck, 0.12, random);
    for (const [gx, gy] of [[3, 3], [10, 2], [5, 9], [11, 10], [2, 12]] as const) {
      texels(ctx, ox, oy, gx, gy, 2, 2, gem);
      texels(ctx, ox, oy, gx, gy, 1, 1, gemLight);
    }
    bevel(ctx, ox, oy, 'rgba(255,255,255,0.25)', 'rgba(0,0,0,0.3)');
  };
}

const PAINTERS: Record<(typeof BLOCK_TYPES)[number], Painter> = {
  stone: (ctx, ox, oy, r) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#8a8d91');
    speckle(ctx, ox, oy, '#74777b', 0.18, r);
    speckle(ctx, ox, oy, '#a3a6aa', 0.08, r);
    bevel(ctx, ox, oy, '#aeb1b5', '#5d6064');
  },
  wood: (ctx, ox, oy) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#a0703c');
    for (let row = 0; row < 16; row += 4) {
      texels(ctx, ox, oy, 0, row + 3, 16, 1, '#6e4a24');
      texels(ctx, ox, oy, (row * 5) % 13, row + 1, 4, 1, '#8a5e30');
      texels(ctx, ox, oy, (row * 3 + 8) % 16, row, 1, 3, '#6e4a24');
    }
    bevel(ctx, ox, oy, '#c08a50', '#5a3b1c');
  },
  brick: (ctx, ox, oy) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#b24a33');
    for (let row = 0; row < 4; row++) {
      const shift = row % 2 ? 4 : 0;
      texels(ctx, ox, oy, 0, row * 4, 16, 1, '#cc6448');
      texels(ctx, ox, oy, 0, row * 4 + 3, 16, 1, '#d8d0c4');
      texels(ctx, ox, oy, shift, row * 4, 1, 3, '#d8d0c4');
      texels(ctx, ox, oy, shift + 8, row * 4, 1, 3, '#d8d0c4');
    }
  },
  dirt: (ctx, ox, oy, r) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#866043');
    speckle(ctx, ox, oy, '#6b4a32', 0.2, r);
    speckle(ctx, ox, oy, '#9c7654', 0.1, r);
    bevel(ctx, ox, oy, '#9c7654', '#5a3f2a');
  },
  gold: (ctx, ox, oy, r) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#f2c230');
    speckle(ctx, ox, oy, '#d9a21e', 0.15, r);
    texels(ctx, ox, oy, 2, 2, 5, 1, '#fff3a6');
    texels(ctx, ox, oy, 2, 2, 1, 4, '#fff3a6');
    bevel(ctx, ox, oy, '#ffe27a', '#a87812');
  },
  iron: ore('#8a8d91', '#74777b', '#d8b89a', '#f0dcc8'),
  diamond: ore('#8a8d91', '#74777b', '#3fd8e0', '#c8fbff'),
  emerald: ore('#8a8d91', '#74777b', '#17c45a', '#9dffc0'),
  coal: ore('#8a8d91', '#74777b', '#1c1c1c', '#444444'),
  obsidian: (ctx, ox, oy, r) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#1e1530');
    speckle(ctx, ox, oy, '#3a2a5c', 0.14, r);
    speckle(ctx, ox, oy, '#5b3f8f', 0.04, r);
    bevel(ctx, ox, oy, '#3a2a5c', '#0c0814');
  },
  glass: (ctx, ox, oy) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, 'rgba(190,230,255,0.35)');
    texels(ctx, ox, oy, 0, 0, 16, 1, '#e8f8ff');
    texels(ctx, ox, oy, 0, 0, 1, 16, '#e8f8ff');
    texels(ctx, ox, oy, 0, 15, 16, 1, '#9cc8e0');
    texels(ctx, ox, oy, 15, 0, 1, 16, '#9cc8e0');
    for (let i = 0; i < 4; i++) texels(ctx, ox, oy, 3 + i, 6 - i, 1, 1, '#ffffff');
    for (let i = 0; i < 3; i++) texels(ctx, ox, oy, 9 + i, 12 - i, 1, 1, '#ffffff');
  },
  sand: (ctx, ox, oy, r) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#e3cf8f');
    speckle(ctx, ox, oy, '#cdb774', 0.18, r);
    speckle(ctx, ox, oy, '#f3e2ad', 0.08, r);
    bevel(ctx, ox, oy, '#f3e2ad', '#b49d5c');
  },
  cobblestone: (ctx, ox, oy) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#56595d');
    for (const [sx, sy, w, h] of [[1, 1, 6, 4], [8, 1, 7, 5], [1, 6, 4, 5], [6, 7, 5, 4], [12, 7, 3, 4], [1, 12, 7, 3], [9, 12, 6, 3]] as const) {
      texels(ctx, ox, oy, sx, sy, w, h, '#9a9da1');
      texels(ctx, ox, oy, sx, sy, w, 1, '#b8bbbf');
      texels(ctx, ox, oy, sx, sy + h - 1, w, 1, '#7d8084');
    }
  },
  marble: (ctx, ox, oy) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#eeeae4');
    for (let i = 0; i < 16; i++) texels(ctx, ox, oy, i, Math.round(8 + Math.sin(i / 2.5) * 4), 1, 1, '#b9b4ad');
    for (let i = 3; i < 12; i++) texels(ctx, ox, oy, i, Math.round(3 + Math.cos(i / 2) * 2), 1, 1, '#cfcac3');
    bevel(ctx, ox, oy, '#ffffff', '#c4beb6');
  },
  copper: (ctx, ox, oy, r) => {
    texels(ctx, ox, oy, 0, 0, 16, 16, '#c06a3a');
    speckle(ctx, ox, oy, '#d9884f', 0.14, r);
    speckle(ctx, ox, oy, '#4fa88c', 0.07, r);
    bevel(ctx, ox, oy, '#e39a66', '#7f4222');
  },
  redstone: ore('#8a8d91', '#74777b', '#d61f1f', '#ff8a8a'),
};

/** A sheet with one painted cell per block code (cell 0 unused). */
export function paintBlockSheet(makeSurface: SurfaceFactory): Surface {
  const sheet = makeSurface((BLOCK_TYPES.length + 1) * TILE_SIZE, TILE_SIZE);
  const ctx = context2d(sheet);
  const random = createRandom(0xb10c);
  BLOCK_TYPES.forEach((type, i) => PAINTERS[type](ctx, (i + 1) * TILE_SIZE, 0, random));
  return sheet;
}

/** Draws the block with tile code `code` at (x, y); unknown codes draw as dirt. */
export function drawBlock(ctx: Ctx2D, sheet: Surface, code: number, x: number, y: number): void {
  const cell = isKnownBlockCode(code) ? code : DIRT_CODE;
  ctx.drawImage(sheet as CanvasImageSource, cell * TILE_SIZE, 0, TILE_SIZE, TILE_SIZE, x, y, TILE_SIZE, TILE_SIZE);
}
