import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createOwnBlocks } from '../../../../net/blocks/own-blocks.js';

test('a removal of the player\'s block is told; others\' removals and forgotten tiles are not', () => {
  let removed = 0;
  const own = createOwnBlocks('me', () => removed++);
  own.note(1, 1, 'me');
  own.note(2, 2, 'other');
  own.note(2, 2, null);
  assert.is(removed, 0);
  own.note(1, 1, null);
  assert.is(removed, 1);
  own.note(3, 3, 'me');
  own.forgetTile(3, 3);
  own.note(3, 3, null);
  assert.is(removed, 1);
});

test('forgetting a chunk forgets only its tiles (chunks of 16 tiles, negative ones included)', () => {
  let removed = 0;
  const own = createOwnBlocks('me', () => removed++);
  own.note(-1, -1, 'me');
  own.note(0, 0, 'me');
  own.note(15, 15, 'me');
  own.forgetChunk({ cx: 0, cy: 0 });
  own.note(0, 0, null);
  own.note(15, 15, null);
  assert.is(removed, 0);
  own.note(-1, -1, null);
  assert.is(removed, 1);
});

test.run();
