import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Toast } from '../../../components/hud.js';
import { UNDO_LIMIT } from '../../../components/edit-history.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { blockAt, blockOwnerAt, setBlock } from '../../../components/tiles.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';

function setup() {
  const toasts: Toast[] = [];
  const published: Record<string, unknown> = {};
  const w = createGameWorld({ hud: { set: (k, v) => (published[k] = v), toast: (t) => toasts.push(t) } });
  spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  return { w, toasts, published };
}

const stone = (w: ReturnType<typeof createGameWorld>) => w.inventory.items[0]?.quantity ?? 0;

test('undo removes the last placed block, redo places it again, each as an ordinary edit', () => {
  const { w, published } = setup();
  w.input.clicks.push({ action: 'place', tileX: 6, tileY: 6 });
  step(w);
  assert.is(published.undoable, 1);
  w.input.edits.push('undo');
  step(w);
  assert.is(blockAt(w.tiles, 6, 6), null);
  assert.is(stone(w), 64);
  assert.equal(published.undoable, 0);
  assert.equal(published.redoable, 1);
  w.input.edits.push('redo');
  step(w);
  assert.is(blockAt(w.tiles, 6, 6), 'stone');
  assert.is(stone(w), 63);
  assert.equal(w.queues.outbox, [
    { kind: 'placeBlock', x: 6, y: 6, blockType: 'stone', inventory: true },
    { kind: 'removeBlock', x: 6, y: 6, blockType: 'stone' },
    { kind: 'placeBlock', x: 6, y: 6, blockType: 'stone', inventory: true },
  ]);
});

test('undoing a removal of an own block puts it back; of another player\'s block is refused', () => {
  const { w, toasts } = setup();
  setBlock(w.tiles, 7, 7, 'wood', 'me');
  setBlock(w.tiles, 8, 7, 'brick', 'alice');
  w.input.clicks.push({ action: 'remove', tileX: 7, tileY: 7 }, { action: 'remove', tileX: 8, tileY: 7 });
  step(w);
  w.input.edits.push('undo', 'undo');
  step(w);
  assert.is(blockAt(w.tiles, 8, 7), null);
  assert.is(blockAt(w.tiles, 7, 7), 'wood');
  assert.is(blockOwnerAt(w.tiles, 7, 7), 'me');
  assert.equal(toasts, [{ title: 'Cannot Undo', description: 'Only your own blocks can be put back.', variant: 'default' }]);
});

test('undo refuses a tile that is no longer empty and a block that is no longer the player\'s', () => {
  const { w, toasts } = setup();
  w.input.clicks.push({ action: 'place', tileX: 9, tileY: 9 });
  step(w);
  setBlock(w.tiles, 9, 9, 'stone', 'alice'); // someone else removed it and built their own
  w.input.edits.push('undo');
  step(w);
  assert.is(blockOwnerAt(w.tiles, 9, 9), 'alice');
  setBlock(w.tiles, 3, 9, 'wood', 'me');
  w.input.clicks.push({ action: 'remove', tileX: 3, tileY: 9 });
  step(w);
  setBlock(w.tiles, 3, 9, 'sand', 'alice');
  w.input.edits.push('undo');
  step(w);
  assert.is(blockAt(w.tiles, 3, 9), 'sand');
  assert.equal(toasts.map((t) => t.description), ['That block is no longer yours to remove.', 'That tile is no longer empty.']);
});

test('only the last 50 edits are remembered, and a new edit clears redo', () => {
  const { w } = setup();
  for (let i = 0; i < UNDO_LIMIT + 5; i++) w.input.clicks.push({ action: 'place', tileX: 10 + i, tileY: 20 });
  step(w);
  assert.is(w.history.undo.length, 50);
  assert.is(w.history.undo[0]!.x, 15);
  w.input.edits.push('undo');
  step(w);
  assert.is(w.history.redo.length, 1);
  w.input.clicks.push({ action: 'place', tileX: 0, tileY: 30 });
  step(w);
  assert.is(w.history.redo.length, 0);
});

test('restore re-places only empty tiles, owned by the player, without using the inventory', () => {
  const { w, published } = setup();
  setBlock(w.tiles, 12, 3, 'dirt', 'alice');
  w.queues.inbox.push({
    kind: 'restorable',
    blocks: [
      { x: 11, y: 3, blockType: 'gold' },
      { x: 12, y: 3, blockType: 'gold' },
      { x: 1, y: 1, blockType: 'gold' },
    ],
  });
  step(w);
  assert.is(published.restorable, 3);
  w.commands.push({ kind: 'restoreBlocks' });
  step(w);
  assert.is(blockOwnerAt(w.tiles, 11, 3), 'me');
  assert.is(blockAt(w.tiles, 12, 3), 'dirt');
  assert.is(blockAt(w.tiles, 1, 1), null);
  assert.is(w.inventory.items[4]?.quantity, 8);
  assert.equal(w.queues.outbox, [{ kind: 'placeBlock', x: 11, y: 3, blockType: 'gold', inventory: false }]);
  assert.is(published.restorable, 0);
  w.queues.inbox.push({ kind: 'blockRefused', action: 'place', x: 11, y: 3, blockType: 'gold', reason: 'rate', inventory: false });
  step(w);
  assert.is(w.inventory.items[4]?.quantity, 8);
});

test.run();
