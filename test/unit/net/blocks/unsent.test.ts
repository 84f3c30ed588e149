import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUnsentEdits } from '../../../../net/blocks/unsent.js';

const AREA = { x0: 0, y0: 0, x1: 16, y1: 16 };
const rows = [
  { x: 1, y: 1, blockType: 'stone', owner: 'bob' },
  { x: 2, y: 2, blockType: 'wood', owner: 'bob' },
];

test('a read shows the edits on their way over its rows: a placement as the player\'s block, a removal as empty', () => {
  const unsent = createUnsentEdits('me');
  unsent.hold(3, 3, 'gold');
  unsent.hold(2, 2, null);
  unsent.hold(20, 3, 'gold');
  assert.equal(unsent.over(rows, AREA), [
    { x: 1, y: 1, blockType: 'stone', owner: 'bob' },
    { x: 3, y: 3, blockType: 'gold', owner: 'me' },
  ]);
});

test('the latest edit of a tile is shown until every edit of it is answered', () => {
  const unsent = createUnsentEdits('me');
  unsent.hold(1, 1, null);
  unsent.hold(1, 1, 'glass');
  assert.equal(unsent.over(rows, AREA).find((b) => b.x === 1), { x: 1, y: 1, blockType: 'glass', owner: 'me' });
  unsent.release(1, 1);
  assert.equal(unsent.over(rows, AREA).find((b) => b.x === 1), { x: 1, y: 1, blockType: 'glass', owner: 'me' });
  unsent.release(1, 1);
  assert.equal(unsent.over(rows, AREA), rows, 'answered: the read shows the server\'s rows');
});

test.run();
