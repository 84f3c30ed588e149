import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEidList, pushEid, resizeEidList } from '../../../components/eid-list.js';

test('a list grows as eids are appended and keeps its storage when emptied', () => {
  const list = createEidList(2);
  for (let e = 1; e <= 5; e++) pushEid(list, e);
  assert.equal([list.length, Array.from(list.eids.subarray(0, list.length))], [5, [1, 2, 3, 4, 5]]);
  assert.is(list.eids.length, 8);
  const storage = list.eids;
  list.length = 0;
  pushEid(list, 9);
  assert.is(list.eids, storage);
  assert.equal(Array.from(list.eids.subarray(0, list.length)), [9]);
});

test('resizing keeps the eids already there and grows the storage to fit', () => {
  const list = createEidList(2);
  pushEid(list, 7);
  pushEid(list, 8);
  resizeEidList(list, 5);
  assert.equal([list.length, list.eids.length, list.eids[0], list.eids[1]], [5, 8, 7, 8]);
  resizeEidList(list, 1);
  assert.equal([list.length, list.eids.length, list.eids[0]], [1, 8, 7]);
});

test.run();
