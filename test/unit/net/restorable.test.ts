import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RESTORE_REFRESH_MS, VIEW_HALF_HEIGHT_TILES, VIEW_HALF_WIDTH_TILES } from '../../../net/constants.js';
import { readDue, restorableInView } from '../../../net/restorable.js';

test('the removals are read at the start, when marked stale and at least every RESTORE_REFRESH_MS, else never', () => {
  assert.ok(readDue(null, 0, false), 'never read');
  assert.ok(readDue(100_000, 100_001, true), 'a removal heard, or a reconnect');
  assert.not.ok(readDue(100_000, 100_000 + RESTORE_REFRESH_MS - 1, false), 'walking or standing asks nothing of the server');
  assert.ok(readDue(100_000, 100_000 + RESTORE_REFRESH_MS, false));
});

test('restorable now: the removals in view whose tiles are empty, worked out without a request', () => {
  const removals = [
    { x: 10 + VIEW_HALF_WIDTH_TILES, y: -4, blockType: 'stone' },
    { x: 10 + VIEW_HALF_WIDTH_TILES + 1, y: -4, blockType: 'stone' },
    { x: 10, y: -4 - VIEW_HALF_HEIGHT_TILES, blockType: 'wood' },
    { x: 10, y: -4 - VIEW_HALF_HEIGHT_TILES - 1, blockType: 'wood' },
    { x: 11, y: -4, blockType: 'brick' },
  ];
  const occupied = new Set(['11,-4']);
  const world = { hasBlock: (x: number, y: number) => occupied.has(`${x},${y}`) };
  assert.equal(restorableInView(removals, { x: 10, y: -4 }, world), [removals[0], removals[2]]);
  // Walking on brings the others into view.
  assert.equal(restorableInView(removals, { x: 11, y: -5 }, world), [removals[0], removals[1], removals[2], removals[3]]);
});

test.run();
