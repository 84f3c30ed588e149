import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chunksAround, chunkTiles, regionOfChunk } from '../../../net/chunks.js';
import { decodeBlockChanges } from '../../../protocol/block-changes.js';
import { chunkOfTile, regionOf, regionOfTile } from '../../../protocol/geometry.js';
import { blocksTopic } from '../../../protocol/topics.js';

test('a tile lies in the chunk of its 16-tile square, negative tiles included', () => {
  assert.equal(chunkOfTile(0, 15), { cx: 0, cy: 0 });
  assert.equal(chunkOfTile(16, -1), { cx: 1, cy: -1 });
  assert.equal(chunkOfTile(-16, -17), { cx: -1, cy: -2 });
  assert.equal(chunkTiles(-1, 2), { x0: -16, y0: 32, x1: 0, y1: 48 });
});

test('a tile lies in the region that presence gives its pixels, centred on spawn', () => {
  for (const [x, y] of [[0, 0], [15, -16], [16, 15], [-17, 47], [48, -49], [4999, -5000]] as const) {
    assert.equal(regionOfTile(x, y), regionOf(x * 32 + 31, y * 32 + 31), `tile ${x},${y}`);
    assert.equal(regionOfTile(x, y), regionOf(x * 32, y * 32), `tile ${x},${y}`);
  }
  assert.equal(regionOfTile(-16, -17), { rx: 0, ry: -1 });
  assert.is(blocksTopic(regionOfTile(16, -17)), 'blocks:1:-1');
});

test('each region holds 2x2 chunks', () => {
  assert.equal([regionOfChunk(0, 0), regionOfChunk(-1, -1), regionOfChunk(1, 0), regionOfChunk(2, 1)], [
    { rx: 0, ry: 0 },
    { rx: 0, ry: 0 },
    { rx: 1, ry: 0 },
    { rx: 1, ry: 1 },
  ]);
});

test('the chunks around a view come in view first, nearest first, then the margin as the view would reach it', () => {
  const chunks = chunksAround(16, 16, 400, 300, 192).map(({ cx, cy }) => `${cx}:${cy}`);
  assert.equal(chunks.slice(0, 4).sort(), ['-1:-1', '-1:0', '0:-1', '0:0']);
  assert.is(chunks[0], '0:0');
  assert.equal(chunks.slice(4).sort(), ['-2:-1', '-2:0', '1:-1', '1:0']);
  assert.is(chunks.length, 8);
  // At x = 1000 the view spans pixels 600..1399 (chunk columns 1, 2); column 0 starts 88 px
  // beyond its left edge, column 3 136 px beyond its right edge: column 0 comes first.
  const east = chunksAround(1000, 16, 400, 300, 192);
  assert.equal(east.slice(0, 4).map(({ cx }) => cx).sort(), [1, 1, 2, 2]);
  assert.equal(east.slice(4).map(({ cx }) => cx), [0, 0, 3, 3]);
});

test('a blocks payload is read entry by entry; malformed entries are skipped', () => {
  assert.equal(
    decodeBlockChanges({ c: [[1, 2], [1.5, 2], 'x'], s: [[3, 4, 'stone', 'w'], [3, 4, 5, 'w'], [3, 'y', 'stone', 'w']], id: 'u' }),
    [
      { x: 1, y: 2, blockType: null, owner: '' },
      { x: 3, y: 4, blockType: 'stone', owner: 'w' },
    ],
  );
  assert.equal(decodeBlockChanges(null), []);
  assert.equal(decodeBlockChanges({ c: 'no' }), []);
});

test.run();
