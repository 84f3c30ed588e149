import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeBlockChanges, encodeBlockChanges, type BlockChange } from '../../../protocol/block-changes.js';

const changes: BlockChange[] = [
  { x: 1, y: 2, blockType: null, owner: '' },
  { x: -40, y: 7, blockType: null, owner: '' },
  { x: 3, y: 4, blockType: 'stone', owner: 'WalletA' },
  { x: 1, y: 2, blockType: 'glass', owner: 'WalletB' },
];

test('block changes are sent as {c: [[x, y]], s: [[x, y, type, owner]]}, clears and sets each in order', () => {
  assert.equal(encodeBlockChanges(changes), { c: [[1, 2], [-40, 7]], s: [[3, 4, 'stone', 'WalletA'], [1, 2, 'glass', 'WalletB']] });
  assert.equal(encodeBlockChanges([]), { c: [], s: [] });
});

test('a payload round-trips through JSON, clears first', () => {
  assert.equal(decodeBlockChanges(JSON.parse(JSON.stringify(encodeBlockChanges(changes)))), changes);
  const mixed = [changes[2]!, changes[0]!];
  assert.equal(decodeBlockChanges(encodeBlockChanges(mixed)), [changes[0], changes[2]]);
});

test('malformed entries are skipped and other fields ignored', () => {
  assert.equal(decodeBlockChanges({ c: [[1, 2.5], 'x', [3]], s: [[1, 2, 5, 'w'], [1, 2, 'stone']], id: 'u' }), []);
  assert.equal(decodeBlockChanges(7), []);
});

test.run();
