/** The client's placement check; removals are the server's (test/server/game/world/support.test.ts). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canPlaceWithSupport, type SupportWorld } from '../../../components/support.js';

/** A world whose water is every tile with x >= 0, with the given blocks. */
function world(blocks: Array<[number, number]>): SupportWorld {
  const set = new Set(blocks.map(([x, y]) => `${x},${y}`));
  return {
    hasBlock: (x, y) => set.has(`${x},${y}`),
    isWater: (x) => x >= 0,
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

test.run();
