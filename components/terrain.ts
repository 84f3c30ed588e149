/**
 * Terrain: the biome of every tile is a pure function of (tileX, tileY, seed), built from three
 * simplex-noise fields (elevation, temperature, moisture). Nothing is stored; the noise
 * functions for a seed are memoised because building their permutation tables is the only cost.
 */
import { createNoise2D, type NoiseFunction2D } from 'simplex-noise';
import { SPAWN_RADIUS } from './constants.js';
import { createRandom } from './prng.js';

/**
 * The seed of the one shared world. The server's copy of the water rule
 * (supabase/migrations/20250201000000_terrain.sql) carries the permutation table this seed gives.
 */
export const WORLD_SEED = 20240601;

/** Tiles whose elevation is below this are water (ocean or tropical ocean). */
export const WATER_ELEVATION = -0.38;

/** Every biome, spawn first. A biome's code is its index. */
export const BIOMES = [
  'spawn', 'grassland', 'jungle', 'savanna', 'desert', 'mountains', 'snow_peaks', 'ocean',
  'tropical_ocean', 'pine_forest', 'tundra', 'arctic', 'wetlands', 'forest', 'swamp',
] as const;

/** A biome name. */
export type Biome = (typeof BIOMES)[number];

/** Overlay label of each biome. */
export const BIOME_LABELS: Readonly<Record<Biome, string>> = Object.freeze({
  spawn: 'Spawn',
  grassland: 'Grassland',
  jungle: 'Jungle',
  savanna: 'Savanna',
  desert: 'Desert',
  mountains: 'Mountains',
  snow_peaks: 'Snow Peaks',
  ocean: 'Ocean',
  tropical_ocean: 'Tropical Ocean',
  pine_forest: 'Pine Forest',
  tundra: 'Tundra',
  arctic: 'Arctic',
  wetlands: 'Wetlands',
  forest: 'Forest',
  swamp: 'Swamp',
});

const code = (biome: Biome): number => BIOMES.indexOf(biome);

/** Biome codes, for code that stores biomes in typed arrays. */
export const BIOME = Object.freeze({
  spawn: code('spawn'),
  grassland: code('grassland'),
  jungle: code('jungle'),
  savanna: code('savanna'),
  desert: code('desert'),
  mountains: code('mountains'),
  snowPeaks: code('snow_peaks'),
  ocean: code('ocean'),
  tropicalOcean: code('tropical_ocean'),
  pineForest: code('pine_forest'),
  tundra: code('tundra'),
  arctic: code('arctic'),
  wetlands: code('wetlands'),
  forest: code('forest'),
  swamp: code('swamp'),
});

interface NoiseSet {
  elevation: NoiseFunction2D;
  temperature: NoiseFunction2D;
  moisture: NoiseFunction2D;
}

const noiseBySeed = new Map<number, NoiseSet>();

function noiseFor(seed: number): NoiseSet {
  let set = noiseBySeed.get(seed);
  if (!set) {
    set = {
      elevation: createNoise2D(createRandom(seed)),
      temperature: createNoise2D(createRandom(seed ^ 0x5bd1e995)),
      moisture: createNoise2D(createRandom(seed ^ 0x1b873593)),
    };
    noiseBySeed.set(seed, set);
  }
  return set;
}

/** Two octaves of noise at `scale` tiles per feature: smooth regions with ragged borders. */
function field(noise: NoiseFunction2D, x: number, y: number, scale: number): number {
  return noise(x / scale, y / scale) * 0.75 + noise(x / (scale / 4), y / (scale / 4)) * 0.25;
}

/** What the player is told when an edit inside the spawn area is refused (by the engine or the server). */
export const SPAWN_PROTECTED = 'Cannot build in spawn area - protected zone!';

/** Whether tile (x, y) lies in the protected, gold spawn area. */
export function isSpawnTile(tileX: number, tileY: number): boolean {
  return Math.abs(tileX) <= SPAWN_RADIUS && Math.abs(tileY) <= SPAWN_RADIUS;
}

/** The elevation of tile (x, y): below {@link WATER_ELEVATION} is water. */
export function elevationAt(tileX: number, tileY: number, seed: number): number {
  return field(noiseFor(seed).elevation, tileX, tileY, 160);
}

/**
 * Whether tile (x, y) is water (ocean or tropical ocean). The one definition shared by terrain
 * drawing, the client's support check and, ported to SQL, the server.
 */
export function isWaterTile(tileX: number, tileY: number, seed: number): boolean {
  return !isSpawnTile(tileX, tileY) && elevationAt(tileX, tileY, seed) < WATER_ELEVATION;
}

/** The biome code of tile (x, y) for a world seed; the same inputs always give the same code. */
export function biomeCodeAt(tileX: number, tileY: number, seed: number): number {
  if (isSpawnTile(tileX, tileY)) return BIOME.spawn;
  const n = noiseFor(seed);
  const e = elevationAt(tileX, tileY, seed);
  const t = field(n.temperature, tileX, tileY, 420);
  const m = field(n.moisture, tileX, tileY, 260);
  if (e < WATER_ELEVATION) return t > 0.2 ? BIOME.tropicalOcean : BIOME.ocean;
  if (e > 0.5) return t < -0.05 ? BIOME.snowPeaks : BIOME.mountains;
  if (t < -0.5) return BIOME.arctic;
  if (t < -0.2) return m < 0 ? BIOME.tundra : BIOME.pineForest;
  if (t < 0.25) {
    if (m < -0.05) return BIOME.grassland;
    if (m < 0.35) return BIOME.forest;
    return BIOME.wetlands;
  }
  if (m < -0.3) return BIOME.desert;
  if (m < 0.05) return BIOME.savanna;
  if (m < 0.4) return BIOME.jungle;
  return BIOME.swamp;
}

/** The biome of tile (x, y) for a world seed. */
export function biomeAt(tileX: number, tileY: number, seed: number): Biome {
  return BIOMES[biomeCodeAt(tileX, tileY, seed)]!;
}
