import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canPlaceWithSupport, orphansAfterRemoval, type SupportWorld } from '../../../net/support.js';

/** A world whose water is every tile with x >= 0, with the given blocks. */
function world(blocks: Array<[number, number]>): SupportWorld & { remove(x: number, y: number): void } {
  const set = new Set(blocks.map(([x, y]) => `${x},${y}`));
  return {
    hasBlock: (x, y) => set.has(`${x},${y}`),
    isWater: (x) => x >= 0,
    remove: (x, y) => void set.delete(`${x},${y}`),
  };
}

test('a block on land needs no support', () => {
  assert.ok(canPlaceWithSupport(world([]), -3, 7));
});

test('a block on water needs a neighbouring block', () => {
  assert.not.ok(canPlaceWithSupport(world([]), 2, 0));
  assert.ok(canPlaceWithSupport(world([[1, 0]]), 2, 0));
  assert.not.ok(canPlaceWithSupport(world([[1, 1]]), 2, 0), 'a diagonal block is no support');
});

test('cutting a bridge removes the part left floating on water', () => {
  const bridge = world([[-1, 0], [0, 0], [1, 0], [2, 0], [3, 0]]);
  bridge.remove(1, 0);
  assert.equal(orphansAfterRemoval(bridge, 1, 0), [{ x: 2, y: 0 }, { x: 3, y: 0 }]);
});

test('blocks still linked to land through another path stay', () => {
  const loop = world([[-1, 0], [0, 0], [1, 0], [-1, 1], [0, 1], [1, 1]]);
  loop.remove(0, 0);
  assert.equal(orphansAfterRemoval(loop, 0, 0), []);
});

test('removing a block on land orphans nothing on land', () => {
  const land = world([[-3, 0], [-2, 0]]);
  land.remove(-3, 0);
  assert.equal(orphansAfterRemoval(land, -3, 0), []);
});

test.run();
