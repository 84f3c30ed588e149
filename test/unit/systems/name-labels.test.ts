import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addName, clearNames, createNameLayout, layoutNames, NAME_CROWD_LIMIT, type NameLayout } from '../../../systems/draw/name-labels.js';

/** The shown boxes in drawing order: [eid, left, top, width, height]. */
const drawn = (l: NameLayout) => Array.from(l.order.subarray(0, l.drawn), (i) => [l.eid[i]!, l.x[i]!, l.y[i]!, l.w[i]!, l.h[i]!]);
const overlap = (a: number[], b: number[]) => a[1]! < b[1]! + b[3]! && b[1]! < a[1]! + a[3]! && a[2]! < b[2]! + b[4]! && b[2]! < a[2]! + a[4]!;

test('two players on one spot: the remote label is lifted above the local one, the local drawn last', () => {
  const l = createNameLayout(8);
  addName(l, 7, 400.4, 278, 60, 12, 0); // remote, same place
  addName(l, 1, 400, 278, 50, 12, 0); // local
  layoutNames(l, 1);
  assert.equal(drawn(l), [
    [7, 370, 253, 60, 12],
    [1, 375, 266, 50, 12],
  ]);
});

test('a crowd on one spot: only the nearest NAME_CROWD_LIMIT and the local player are named, none overlapping', () => {
  const l = createNameLayout(64);
  for (let e = 2; e < 40; e++) addName(l, e, 400 + (e % 3), 300, 40, 12, e * e);
  addName(l, 1, 400, 300, 40, 12, 0);
  layoutNames(l, 1);
  const boxes = drawn(l);
  assert.ok(boxes.length <= NAME_CROWD_LIMIT + 1);
  assert.is(boxes.at(-1)![0], 1, 'the local label is drawn last');
  for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) assert.not.ok(overlap(boxes[a]!, boxes[b]!), `${boxes[a]} and ${boxes[b]}`);
  // Stacked five high at most (the wanted place and four lifts): the nearest four are named.
  assert.equal(boxes.map((b) => b[0]).reverse(), [1, 2, 3, 4, 5]);
});

test('spread players keep their labels where they stand; beyond the crowd limit the farthest go unnamed', () => {
  const l = createNameLayout(64);
  for (let e = 2; e < 22; e++) addName(l, e, e * 50, 300, 40, 12, (e * 50 - 400) ** 2);
  addName(l, 1, 400, 360, 40, 12, 0);
  layoutNames(l, 1);
  const boxes = drawn(l);
  assert.is(boxes.length, NAME_CROWD_LIMIT + 1);
  assert.ok(boxes.every((b) => b[2] === (b[0] === 1 ? 348 : 288)), 'nobody lifted');
  const named = new Set(boxes.map((b) => b[0]));
  assert.ok(named.has(8) && named.has(2) && !named.has(21), [...named].join(','));
  clearNames(l);
  layoutNames(l, 1);
  assert.is(l.drawn, 0);
});

test.run();
