import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIOMES, biomeAt } from '../../../components/terrain.js';

test('the biome function is deterministic for a seed', () => {
  const a: string[] = [];
  const b: string[] = [];
  for (let i = 0; i < 500; i++) {
    const x = i * 37 - 4000;
    const y = i * -53 + 3000;
    a.push(biomeAt(x, y, 99));
    b.push(biomeAt(x, y, 99));
  }
  assert.equal(a, b);
  const other: string[] = [];
  for (let i = 0; i < 500; i++) other.push(biomeAt(i * 37 - 4000, i * -53 + 3000, 100));
  assert.not.equal(a, other);
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
