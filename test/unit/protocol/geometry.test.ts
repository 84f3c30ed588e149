import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CHUNK_TILES,
  chunkOfTile,
  parseRegionName,
  REGION_PX,
  REGION_TILES,
  regionIndexOfPixel,
  regionIndexOfTile,
  regionName,
  regionOf,
  regionOfTile,
  regionsAround,
  TILE_SIZE,
} from '../../../protocol/geometry.js';

test('a region is 32x32 tiles (1024 px) centred on a multiple of 32 tiles; region (0, 0) spans tiles -16 to 15', () => {
  assert.is(REGION_PX, 1024);
  assert.equal([-17, -16, 15, 16, 47, 48].map(regionIndexOfTile), [-1, 0, 0, 1, 1, 2]);
  assert.equal([-513, -512, 511, 512].map(regionIndexOfPixel), [-1, 0, 0, 1]);
  assert.equal(regionOfTile(-16, 16), { rx: 0, ry: 1 });
});

test('the region of a pixel is the region of its tile', () => {
  for (let t = -70; t <= 70; t++) {
    for (const p of [t * TILE_SIZE, t * TILE_SIZE + TILE_SIZE - 1]) assert.is(regionIndexOfPixel(p), regionIndexOfTile(t), `tile ${t}, pixel ${p}`);
  }
  assert.equal(regionOf(-513, 512), regionOfTile(-17, 16));
});

test('a chunk is 16x16 tiles from a multiple of 16, and each region holds 2x2 whole chunks', () => {
  assert.equal(chunkOfTile(15, -1), { cx: 0, cy: -1 });
  assert.equal(chunkOfTile(16, -16), { cx: 1, cy: -1 });
  assert.is(REGION_TILES % CHUNK_TILES, 0);
  for (let t = -64; t < 64; t += CHUNK_TILES) {
    const first = regionIndexOfTile(t);
    for (let i = 1; i < CHUNK_TILES; i++) assert.is(regionIndexOfTile(t + i), first, `chunk from ${t}`);
  }
});

test('a region name round-trips; anything else names no region', () => {
  for (const region of [{ rx: 0, ry: 0 }, { rx: -1, ry: 12 }, { rx: 155, ry: -156 }]) {
    assert.is(regionName(region), `${region.rx}:${region.ry}`);
    assert.equal(parseRegionName(regionName(region)), region);
  }
  for (const junk of ['', '1', '1:', ':1', '1:2:3', '01:2', '-0:0', '1.5:2', ' 1:2', 'a:b', '1:2 ']) assert.is(parseRegionName(junk), null, junk);
});

test('the 3x3 around a region starts with the region, then row by row', () => {
  assert.equal(regionsAround({ rx: 2, ry: -1 }).map(regionName), ['2:-1', '1:-2', '2:-2', '3:-2', '1:-1', '3:-1', '1:0', '2:0', '3:0']);
});

test.run();
