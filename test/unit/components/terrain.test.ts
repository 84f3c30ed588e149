import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIOMES, BIOME_LABELS, biomeAt } from '../../../components/terrain.js';

/** Fixed tiles and the biome each has, per seed: a change to the terrain function shows here. */
const PINNED: Record<number, [number, number, string][]> = {
  99: [
    [-4986, -4983, 'wetlands'], [2933, 76, 'pine_forest'], [879, -4832, 'ocean'], [-1175, 227, 'tundra'],
    [-3229, -4681, 'snow_peaks'], [4690, 378, 'savanna'], [582, 529, 'grassland'], [-1472, -4379, 'arctic'],
    [2339, 831, 'desert'], [1745, 1586, 'tropical_ocean'], [-4417, -3171, 'forest'], [-3551, 3247, 'swamp'],
    [-2388, 4304, 'jungle'], [1967, 3926, 'mountains'], [0, 0, 'spawn'], [3, 0, 'grassland'],
  ],
  20240601: [
    [-4986, -4983, 'pine_forest'], [2933, 76, 'savanna'], [879, -4832, 'forest'], [2636, -4530, 'tundra'],
    [582, 529, 'grassland'], [-1472, -4379, 'ocean'], [4393, -4228, 'arctic'], [-1769, 982, 'jungle'],
    [-4120, 1435, 'desert'], [-606, 2039, 'swamp'], [1151, 2341, 'wetlands'], [-903, -2567, 'tropical_ocean'],
    [854, -2265, 'mountains'], [-4442, -604, 'snow_peaks'], [0, 0, 'spawn'], [3, 0, 'grassland'],
  ],
};

test('fixed tiles have their pinned biome for seeds 99 and 20240601', () => {
  for (const [seed, tiles] of Object.entries(PINNED)) {
    const actual = tiles.map(([x, y]) => [x, y, biomeAt(x, y, Number(seed))]);
    assert.equal(actual, tiles, `seed ${seed}`);
  }
});

test('the same tile differs between seeds', () => {
  assert.is(biomeAt(-4986, -4983, 99), 'wetlands');
  assert.is(biomeAt(-4986, -4983, 20240601), 'pine_forest');
  assert.is(biomeAt(2933, 76, 99), 'pine_forest');
  assert.is(biomeAt(2933, 76, 20240601), 'savanna');
});

test('overlay labels of pinned biomes', () => {
  assert.is(BIOME_LABELS[biomeAt(0, 0, 20240601)], 'Spawn');
  assert.is(BIOME_LABELS[biomeAt(3, 0, 20240601)], 'Grassland');
  assert.is(BIOME_LABELS[biomeAt(-4442, -604, 20240601)], 'Snow Peaks');
});

test('the spawn area is spawn, and only it', () => {
  for (let x = -3; x <= 3; x++) {
    for (let y = -3; y <= 3; y++) {
      assert.is(biomeAt(x, y, 7) === 'spawn', Math.abs(x) <= 2 && Math.abs(y) <= 2, `tile ${x},${y}`);
    }
  }
});

test('every biome appears over a large sample', () => {
  for (const seed of [1, 2024]) {
    const seen = new Set<string>();
    for (let x = -5000; x < 5000; x += 100) for (let y = -5000; y < 5000; y += 100) seen.add(biomeAt(x, y, seed));
    seen.add(biomeAt(0, 0, seed));
    assert.equal([...seen].sort(), [...BIOMES].sort(), `seed ${seed}`);
  }
});

test.run();
