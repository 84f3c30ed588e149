import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { claimAt, claimShapeProblem, rectBetween, rectSize, relationOf, type Claim } from '../../../components/claims.js';
import { claimsArea, nearEdge, overlaps, CLAIM_MARGIN_TILES } from '../../../net/claims/area.js';
import { slices } from '../../../net/claims/queries.js';
import { VIEW_HALF_HEIGHT_TILES, VIEW_HALF_WIDTH_TILES } from '../../../net/constants.js';
import { describeRefusal } from '../../../net/refusals.js';
import { REFUSALS } from '../../../protocol/refusals.js';

const claim = (id: string, ownerId: string, x1: number, y1: number, x2: number, y2: number, trusted = false): Claim =>
  ({ id, ownerId, ownerName: ownerId.toUpperCase(), x1, y1, x2, y2, trusted });

test('claimAt: the claim whose inclusive corners hold the tile, else null', () => {
  const list = [claim('a', 'ann', 4, -3, 10, 3), claim('b', 'bob', 11, -3, 15, 1)];
  assert.is(claimAt(list, 4, -3)?.id, 'a');
  assert.is(claimAt(list, 10, 3)?.id, 'a');
  assert.is(claimAt(list, 11, 1)?.id, 'b');
  assert.is(claimAt(list, 11, 2), null);
  assert.is(claimAt(list, 3, 0), null);
});

test('relationOf: own, trusted, other', () => {
  assert.is(relationOf(claim('a', 'ann', 4, 4, 8, 8), 'ann'), 'own');
  assert.is(relationOf(claim('a', 'ann', 4, 4, 8, 8, true), 'bob'), 'trusted');
  assert.is(relationOf(claim('a', 'ann', 4, 4, 8, 8), 'bob'), 'other');
});

test('a rectangle from two corners in any order, its size, and the shape problems in the database\'s words', () => {
  const rect = rectBetween({ x: 10, y: 3 }, { x: 4, y: -3 });
  assert.equal(rect, { x1: 4, y1: -3, x2: 10, y2: 3 });
  assert.equal(rectSize(rect), { width: 7, height: 7, tiles: 49 });
  assert.is(claimShapeProblem(rect), null);
  assert.is(claimShapeProblem({ x1: 4, y1: 4, x2: 7, y2: 8 }), 'A claim is at least 5x5 tiles; this one is 4x5.');
  assert.is(claimShapeProblem({ x1: 4, y1: 4, x2: 104, y2: 8 }), 'A claim is at most 100 tiles wide and 100 tall; this one is 101x5.');
  assert.is(claimShapeProblem({ x1: -7, y1: -2, x2: -3, y2: 2 }), 'Nobody claims spawn: keep the claim one tile clear of the spawn area.');
  assert.is(claimShapeProblem({ x1: -8, y1: -2, x2: -4, y2: 2 }), null, 'one tile clear of the ring');
});

test('the area read: the view plus the margin; read again within half the margin of its edge', () => {
  const area = claimsArea({ x: 0, y: 0 });
  assert.equal(area, { x1: -VIEW_HALF_WIDTH_TILES - CLAIM_MARGIN_TILES, y1: -VIEW_HALF_HEIGHT_TILES - CLAIM_MARGIN_TILES, x2: VIEW_HALF_WIDTH_TILES + CLAIM_MARGIN_TILES, y2: VIEW_HALF_HEIGHT_TILES + CLAIM_MARGIN_TILES });
  assert.not.ok(nearEdge(area, { x: CLAIM_MARGIN_TILES / 2, y: 0 }));
  assert.ok(nearEdge(area, { x: CLAIM_MARGIN_TILES / 2 + 1, y: 0 }));
  assert.ok(nearEdge(area, { x: 0, y: -CLAIM_MARGIN_TILES / 2 - 1 }));
  assert.ok(overlaps({ x1: 0, y1: 0, x2: 4, y2: 4 }, { x1: 4, y1: 4, x2: 9, y2: 9 }), 'one shared corner tile');
  assert.not.ok(overlaps({ x1: 0, y1: 0, x2: 4, y2: 4 }, { x1: 5, y1: 0, x2: 9, y2: 4 }), 'side by side');
});

test('lists go to the server in slices the request bounds allow', () => {
  assert.equal(slices([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
  assert.equal(slices([], 100), []);
  assert.is(slices(Array.from({ length: 400 }, (_, i) => i), 100).length, 4);
});

test('a refused edit in a claim shows the database\'s sentence', () => {
  assert.is(describeRefusal({ code: '42501', message: 'This land is claimed by Ann.', hint: REFUSALS.claimed }, 'block'), 'This land is claimed by Ann.');
  assert.is(describeRefusal({ code: '42501', message: 'new row violates row-level security policy' }, 'block'), 'The server did not allow that.');
});

test.run();
