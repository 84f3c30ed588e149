/**
 * Ground textures of the 14 biomes and the spawn plates, painted once into a sheet: one row per
 * biome code, GROUND_VARIANTS plain cells, then the biome's decorations (trees, cacti, rocks...).
 */
import { TILE_SIZE } from '../../components/constants.js';
import { createRandom, type Random } from '../../components/prng.js';
import { BIOMES, type Biome } from '../../components/terrain.js';
import { bevel, speckle, texels } from './paint.js';
import { context2d, type Ctx2D, type Surface, type SurfaceFactory } from './surface.js';

/** Plain ground cells per biome. */
export const GROUND_VARIANTS = 4;
/** Most decoration cells a biome has. */
const MAX_DECOR = 3;

type Painter = (ctx: Ctx2D, ox: number, oy: number, random: Random) => void;

interface BiomeStyle {
  base: string;
  specks: readonly (readonly [string, number])[];
  /** Chance that a tile carries a decoration. */
  decorChance: number;
  decor: readonly Painter[];
  /** Whether the ocean wave overlay animates this biome. */
  water?: boolean;
}

const shadow = (ctx: Ctx2D, ox: number, oy: number, x: number, y: number, w: number) => texels(ctx, ox, oy, x, y, w, 2, 'rgba(0,0,0,0.25)');

const roundTree = (leaf: string, dark: string, light: string): Painter => (ctx, ox, oy) => {
  shadow(ctx, ox, oy, 4, 13, 10);
  texels(ctx, ox, oy, 7, 11, 2, 3, '#6b4423');
  texels(ctx, ox, oy, 4, 3, 8, 8, leaf);
  texels(ctx, ox, oy, 3, 5, 10, 4, leaf);
  texels(ctx, ox, oy, 5, 2, 6, 1, leaf);
  texels(ctx, ox, oy, 4, 9, 8, 2, dark);
  texels(ctx, ox, oy, 5, 4, 3, 2, light);
};

const pine = (needle: string, dark: string, snow?: string): Painter => (ctx, ox, oy) => {
  shadow(ctx, ox, oy, 4, 14, 9);
  texels(ctx, ox, oy, 7, 12, 2, 3, '#5a3a1e');
  for (let i = 0; i < 6; i++) texels(ctx, ox, oy, 7 - i, 2 + i * 2, 2 + i * 2, 2, i % 2 ? dark : needle);
  if (snow) texels(ctx, ox, oy, 6, 2, 4, 1, snow);
};

const rock = (stone: string, dark: string, light: string): Painter => (ctx, ox, oy) => {
  shadow(ctx, ox, oy, 4, 11, 9);
  texels(ctx, ox, oy, 4, 6, 8, 5, stone);
  texels(ctx, ox, oy, 5, 5, 6, 1, stone);
  texels(ctx, ox, oy, 5, 5, 3, 2, light);
  texels(ctx, ox, oy, 4, 10, 8, 1, dark);
};

const tufts = (color: string): Painter => (ctx, ox, oy, r) => {
  for (let k = 0; k < 4; k++) {
    const x = 1 + Math.floor(r() * 13);
    const y = 3 + Math.floor(r() * 11);
    texels(ctx, ox, oy, x, y, 1, 2, color);
    texels(ctx, ox, oy, x + 1, y - 1, 1, 3, color);
    texels(ctx, ox, oy, x + 2, y, 1, 2, color);
  }
};

const flowers = (colors: readonly string[]): Painter => (ctx, ox, oy, r) => {
  for (let k = 0; k < 5; k++) {
    const x = 1 + Math.floor(r() * 14);
    const y = 1 + Math.floor(r() * 14);
    texels(ctx, ox, oy, x, y + 1, 1, 1, '#2f7a2a');
    texels(ctx, ox, oy, x, y, 1, 1, colors[k % colors.length]!);
  }
};

const cactus: Painter = (ctx, ox, oy) => {
  shadow(ctx, ox, oy, 5, 14, 7);
  texels(ctx, ox, oy, 7, 3, 3, 12, '#3f9b3a');
  texels(ctx, ox, oy, 4, 6, 3, 2, '#3f9b3a');
  texels(ctx, ox, oy, 4, 4, 2, 3, '#3f9b3a');
  texels(ctx, ox, oy, 10, 8, 3, 2, '#3f9b3a');
  texels(ctx, ox, oy, 11, 5, 2, 4, '#3f9b3a');
  texels(ctx, ox, oy, 8, 3, 1, 12, '#5cc255');
};

const puddle = (water: string, rim: string): Painter => (ctx, ox, oy) => {
  texels(ctx, ox, oy, 3, 5, 10, 6, rim);
  texels(ctx, ox, oy, 4, 6, 8, 4, water);
  texels(ctx, ox, oy, 2, 7, 12, 2, water);
  texels(ctx, ox, oy, 5, 7, 3, 1, 'rgba(255,255,255,0.35)');
};

const reeds: Painter = (ctx, ox, oy) => {
  for (const x of [4, 7, 10, 12]) {
    texels(ctx, ox, oy, x, 5, 1, 9, '#6f8f3a');
    texels(ctx, ox, oy, x, 3, 1, 3, '#7a4f2a');
  }
};

const lily: Painter = (ctx, ox, oy) => {
  texels(ctx, ox, oy, 3, 4, 10, 8, '#2f3d22');
  texels(ctx, ox, oy, 5, 6, 4, 3, '#5d9e3a');
  texels(ctx, ox, oy, 6, 6, 1, 1, '#f0a8c8');
};

const acacia: Painter = (ctx, ox, oy) => {
  shadow(ctx, ox, oy, 3, 12, 11);
  texels(ctx, ox, oy, 7, 7, 2, 6, '#6b4423');
  texels(ctx, ox, oy, 2, 4, 12, 3, '#6f8f2a');
  texels(ctx, ox, oy, 4, 3, 8, 1, '#86a832');
};

const palm: Painter = (ctx, ox, oy) => {
  shadow(ctx, ox, oy, 3, 14, 11);
  texels(ctx, ox, oy, 7, 8, 2, 7, '#7a5230');
  texels(ctx, ox, oy, 2, 5, 12, 2, '#2fa33a');
  texels(ctx, ox, oy, 6, 1, 4, 10, '#2fa33a');
  texels(ctx, ox, oy, 3, 3, 3, 2, '#1f7a2a');
  texels(ctx, ox, oy, 10, 7, 3, 2, '#1f7a2a');
  texels(ctx, ox, oy, 7, 5, 2, 2, '#8a5a2a');
};

const iceCrack: Painter = (ctx, ox, oy, r) => {
  let x = 2 + Math.floor(r() * 4);
  for (let y = 1; y < 15; y++) {
    texels(ctx, ox, oy, x, y, 1, 1, '#a9cde0');
    x = Math.max(0, Math.min(15, x + (r() < 0.5 ? 1 : 0)));
  }
};

const snowPatch: Painter = (ctx, ox, oy) => {
  texels(ctx, ox, oy, 3, 5, 9, 5, '#f4f8fb');
  texels(ctx, ox, oy, 5, 4, 6, 7, '#f4f8fb');
  texels(ctx, ox, oy, 5, 9, 6, 1, '#d5e3ee');
};

const STYLES: Record<Biome, BiomeStyle> = {
  spawn: { base: '#e8b923', specks: [['#f5d35a', 0.08], ['#cf9f17', 0.08]], decorChance: 0, decor: [] },
  grassland: {
    base: '#5dae3e', specks: [['#4e9a33', 0.16], ['#72c152', 0.1]], decorChance: 0.22,
    decor: [flowers(['#f4e04d', '#ffffff', '#e84a5f']), tufts('#3f8a2c'), flowers(['#c58cf0', '#f4e04d'])],
  },
  forest: {
    base: '#3f8a34', specks: [['#357a2c', 0.18], ['#4f9e40', 0.08]], decorChance: 0.45,
    decor: [roundTree('#2d6e2a', '#1f5420', '#4a9a3e'), roundTree('#357a2e', '#245c22', '#55a847'), tufts('#2c6a25')],
  },
  jungle: {
    base: '#2e7d32', specks: [['#256b29', 0.2], ['#3d9a42', 0.1]], decorChance: 0.55,
    decor: [palm, roundTree('#1f8a2e', '#146a22', '#3cb44b'), flowers(['#ff5e7e', '#ffb03b'])],
  },
  savanna: {
    base: '#c2b255', specks: [['#ad9d44', 0.16], ['#d4c56a', 0.1]], decorChance: 0.18,
    decor: [acacia, tufts('#9c8a36'), tufts('#a99a40')],
  },
  desert: {
    base: '#e6cf8b', specks: [['#d6bd76', 0.16], ['#f2e0a8', 0.1]], decorChance: 0.08,
    decor: [cactus, rock('#b89a6a', '#8f7550', '#d4b88a'), tufts('#c8a860')],
  },
  mountains: {
    base: '#8a8a8a', specks: [['#767676', 0.2], ['#a0a0a0', 0.1]], decorChance: 0.3,
    decor: [rock('#6d6d6d', '#4f4f4f', '#9a9a9a'), rock('#7d7d7d', '#5a5a5a', '#acacac')],
  },
  snow_peaks: {
    base: '#eef3f8', specks: [['#d7e2ec', 0.16], ['#ffffff', 0.1]], decorChance: 0.22,
    decor: [rock('#8d949c', '#6c737a', '#f4f8fb'), pine('#2f5a3a', '#234a2e', '#ffffff')],
  },
  ocean: { base: '#2f6fbf', specks: [['#2a63ac', 0.2], ['#3a7dcc', 0.08]], decorChance: 0, decor: [], water: true },
  tropical_ocean: { base: '#25b0c8', specks: [['#1f9fb6', 0.18], ['#46c6da', 0.1]], decorChance: 0, decor: [], water: true },
  pine_forest: {
    base: '#4a7a4f', specks: [['#3f6b44', 0.18], ['#568a5a', 0.08]], decorChance: 0.5,
    decor: [pine('#24563a', '#1b4430'), pine('#2b6242', '#1f4d34')],
  },
  tundra: {
    base: '#a3ae95', specks: [['#8f9a82', 0.18], ['#b8c2aa', 0.1]], decorChance: 0.2,
    decor: [snowPatch, rock('#7f857a', '#63685e', '#a2a89c'), tufts('#7c8a66')],
  },
  arctic: { base: '#d8ecf6', specks: [['#c4e0ee', 0.16], ['#eef8fc', 0.1]], decorChance: 0.3, decor: [iceCrack, snowPatch] },
  wetlands: {
    base: '#5e9c6b', specks: [['#4f8a5c', 0.18], ['#6eaf7a', 0.08]], decorChance: 0.4,
    decor: [puddle('#4a86a8', '#3f7a58'), reeds, tufts('#3f7a4c')],
  },
  swamp: {
    base: '#4b5d34', specks: [['#3e4e2a', 0.2], ['#5a6e40', 0.08]], decorChance: 0.45,
    decor: [puddle('#3a4a2a', '#2f3d22'), lily, roundTree('#3d5228', '#2c3c1c', '#566e36')],
  },
};

/** Whether biome code `biome` is water (animated waves). */
export const IS_WATER: readonly boolean[] = BIOMES.map((b) => STYLES[b].water === true);
/** Ground colour of each biome, by biome code (for small maps). */
export const BIOME_COLORS: readonly string[] = BIOMES.map((b) => STYLES[b].base);
/** The first speck colour of each biome, by biome code: the rim of its fringes at biome borders. */
export const BIOME_RIMS: readonly string[] = BIOMES.map((b) => STYLES[b].specks[0]?.[0] ?? STYLES[b].base);
/** Chance per biome code that a tile carries a decoration. */
export const DECOR_CHANCE: readonly number[] = BIOMES.map((b) => STYLES[b].decorChance);
/** Decoration count per biome code. */
export const DECOR_COUNT: readonly number[] = BIOMES.map((b) => STYLES[b].decor.length);

/** A sheet: row = biome code; columns 0..3 plain ground, then decorations on ground. */
export function paintTerrainSheet(makeSurface: SurfaceFactory): Surface {
  const sheet = makeSurface((GROUND_VARIANTS + MAX_DECOR) * TILE_SIZE, BIOMES.length * TILE_SIZE);
  const ctx = context2d(sheet);
  BIOMES.forEach((biome, row) => {
    const style = STYLES[biome];
    const random = createRandom(0x7e44 + row);
    const ground = (ox: number, oy: number) => {
      texels(ctx, ox, oy, 0, 0, 16, 16, style.base);
      for (const [color, density] of style.specks) speckle(ctx, ox, oy, color, density, random);
      if (biome === 'spawn') bevel(ctx, ox, oy, '#fbe38a', '#b8860b');
    };
    for (let v = 0; v < GROUND_VARIANTS; v++) ground(v * TILE_SIZE, row * TILE_SIZE);
    style.decor.forEach((paint, d) => {
      const ox = (GROUND_VARIANTS + d) * TILE_SIZE;
      ground(ox, row * TILE_SIZE);
      paint(ctx, ox, row * TILE_SIZE, random);
    });
  });
  return sheet;
}
