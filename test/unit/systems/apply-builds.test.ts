import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Toast } from '../../../components/hud.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { isWaterTile, WORLD_SEED } from '../../../components/terrain.js';
import { blockAt } from '../../../components/tiles.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';

function setup(seed?: number) {
  const toasts: Toast[] = [];
  const w = createGameWorld({ seed, hud: { set() {}, toast: (t) => toasts.push(t) } });
  spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  return { w, toasts };
}

const qty = (w: ReturnType<typeof createGameWorld>, slot: number) => w.inventory.items[slot]?.quantity ?? 0;

test('left click places the selected block on an empty tile and uses one', () => {
  const { w } = setup();
  w.input.clicks.push({ action: 'place', tileX: 5, tileY: -7 });
  step(w);
  assert.is(blockAt(w.tiles, 5, -7), 'stone');
  assert.is(qty(w, 0), 63);
  assert.equal(w.queues.outbox, [{ kind: 'placeBlock', x: 5, y: -7, blockType: 'stone', inventory: true }]);
});

test('placing on an occupied tile does nothing', () => {
  const { w } = setup();
  w.input.clicks.push({ action: 'place', tileX: 5, tileY: 5 });
  step(w);
  w.input.hotbar = 1;
  w.input.clicks.push({ action: 'place', tileX: 5, tileY: 5 });
  step(w);
  assert.is(blockAt(w.tiles, 5, 5), 'stone');
  assert.is(qty(w, 1), 32);
  assert.is(w.queues.outbox.length, 1);
});

test('right click removes a block and gives one back', () => {
  const { w } = setup();
  w.input.hotbar = 4;
  w.input.clicks.push({ action: 'place', tileX: 10, tileY: 10 });
  step(w);
  assert.is(qty(w, 4), 7);
  w.input.clicks.push({ action: 'remove', tileX: 10, tileY: 10 });
  step(w);
  assert.is(blockAt(w.tiles, 10, 10), null);
  assert.is(qty(w, 4), 8);
  assert.equal(w.queues.outbox[1], { kind: 'removeBlock', x: 10, y: 10, blockType: 'gold' });
});

test('removing where no local block exists asks the server', () => {
  const { w } = setup();
  w.input.clicks.push({ action: 'remove', tileX: 9, tileY: 9 });
  step(w);
  assert.equal(w.queues.outbox, [{ kind: 'removeBlock', x: 9, y: 9, blockType: null }]);
});

test('an emptied stack frees its slot and hotbar entry; a removed block comes back into them', () => {
  const { w } = setup();
  w.input.hotbar = 7;
  step(w);
  for (let i = 0; i < 3; i++) w.input.clicks.push({ action: 'place', tileX: 10 + i, tileY: 3 });
  w.input.clicks.push({ action: 'place', tileX: 20, tileY: 3 });
  step(w);
  assert.is(w.inventory.items[7], null);
  assert.is(w.inventory.hotbar[7], null);
  assert.is(blockAt(w.tiles, 20, 3), null);
  w.input.clicks.push({ action: 'remove', tileX: 11, tileY: 3 });
  step(w);
  assert.equal(w.inventory.items[7], { slot: 7, id: 'emerald', name: 'Emerald', type: 'block', blockType: 'emerald', quantity: 1 });
  assert.is(w.inventory.hotbar[7], 7);
});

test('building and removing in the spawn area is refused with the Spawn Protected toast', () => {
  const { w, toasts } = setup();
  w.input.clicks.push({ action: 'place', tileX: 2, tileY: -2 });
  w.input.clicks.push({ action: 'remove', tileX: -2, tileY: 0 });
  step(w);
  assert.is(blockAt(w.tiles, 2, -2), null);
  assert.is(qty(w, 0), 64);
  assert.is(w.queues.outbox.length, 0);
  assert.equal(toasts, [
    { title: 'Spawn Protected', description: 'Cannot build in spawn area - protected zone!', variant: 'default' },
    { title: 'Spawn Protected', description: 'Cannot build in spawn area - protected zone!', variant: 'default' },
  ]);
  w.input.clicks.push({ action: 'place', tileX: 3, tileY: -2 });
  step(w);
  assert.is(blockAt(w.tiles, 3, -2), 'stone');
  assert.is(toasts.length, 2);
});

test('a refused placement returns the block; a refused removal takes it back', () => {
  const { w } = setup();
  w.input.clicks.push({ action: 'place', tileX: 8, tileY: 8 });
  step(w);
  w.queues.inbox.push({ kind: 'blockRefused', action: 'place', x: 8, y: 8, blockType: 'stone', reason: 'rls', inventory: true });
  w.queues.inbox.push({ kind: 'blockCleared', x: 8, y: 8 });
  step(w);
  assert.is(qty(w, 0), 64);
  assert.is(blockAt(w.tiles, 8, 8), null);
  w.queues.inbox.push({ kind: 'blockSet', x: 8, y: 9, blockType: 'brick', owner: 'other' });
  step(w);
  w.input.clicks.push({ action: 'remove', tileX: 8, tileY: 9 });
  step(w);
  assert.is(qty(w, 2), 17);
  w.queues.inbox.push({ kind: 'blockRefused', action: 'remove', x: 8, y: 9, blockType: 'brick', reason: 'rls', inventory: true });
  w.queues.inbox.push({ kind: 'blockSet', x: 8, y: 9, blockType: 'brick', owner: 'other' });
  step(w);
  assert.is(qty(w, 2), 16);
  assert.is(blockAt(w.tiles, 8, 9), 'brick');
});

/** A shore of the game's world: land at tile (-31, -32), water from -30 eastward. */
const SHORE = { x: -31, y: -32 };
const UNSUPPORTED = { title: 'Block Not Placed', description: 'Blocks on water need a neighbouring block that leads to land.', variant: 'destructive' };

test('a block on water without a neighbouring block is refused before it is placed: nothing shown, nothing sent', () => {
  const { w, toasts } = setup(WORLD_SEED);
  assert.equal([SHORE.x, SHORE.x + 1, SHORE.x + 2].map((x) => isWaterTile(x, SHORE.y, w.seed)), [false, true, true]);
  w.input.clicks.push({ action: 'place', tileX: SHORE.x + 2, tileY: SHORE.y });
  step(w);
  assert.is(blockAt(w.tiles, SHORE.x + 2, SHORE.y), null);
  assert.is(qty(w, 0), 64);
  assert.equal(w.queues.outbox, []);
  assert.equal(w.sounds, []);
  assert.equal(toasts, [UNSUPPORTED]);
  w.input.edits.push('undo');
  step(w);
  assert.equal(w.queues.outbox, [], 'a refused placement is not remembered for undo');
});

test('a bridge grows from the shore one supported block at a time', () => {
  const { w, toasts } = setup(WORLD_SEED);
  for (const dx of [0, 1, 2]) w.input.clicks.push({ action: 'place', tileX: SHORE.x + dx, tileY: SHORE.y });
  step(w);
  assert.equal([0, 1, 2].map((dx) => blockAt(w.tiles, SHORE.x + dx, SHORE.y)), ['stone', 'stone', 'stone']);
  assert.is(qty(w, 0), 61);
  assert.equal(w.queues.outbox.map((edit) => edit.kind === 'placeBlock' && edit.x - SHORE.x), [0, 1, 2]);
  assert.equal(toasts, []);
});

test('redoing a placement whose support has gone is refused like a click', () => {
  const { w, toasts } = setup(WORLD_SEED);
  w.input.clicks.push({ action: 'place', tileX: SHORE.x, tileY: SHORE.y }, { action: 'place', tileX: SHORE.x + 1, tileY: SHORE.y });
  step(w);
  w.input.edits.push('undo');
  step(w);
  w.queues.inbox.push({ kind: 'blockCleared', x: SHORE.x, y: SHORE.y, live: true }); // someone removed the shore block
  w.input.edits.push('redo');
  step(w);
  assert.is(blockAt(w.tiles, SHORE.x + 1, SHORE.y), null);
  assert.is(w.queues.outbox.length, 3, 'two placements and the undo, no redo');
  assert.equal(toasts, [UNSUPPORTED]);
});

test('restored blocks on water go back land outwards; one left without support is refused and not sent', () => {
  const { w, toasts } = setup(WORLD_SEED);
  w.queues.inbox.push({ kind: 'blockSet', x: SHORE.x, y: SHORE.y, blockType: 'wood', owner: 'me' });
  w.queues.inbox.push({
    kind: 'restorable',
    blocks: [
      { x: SHORE.x + 2, y: SHORE.y, blockType: 'glass' },
      { x: SHORE.x + 1, y: SHORE.y, blockType: 'wood' },
      { x: SHORE.x + 5, y: SHORE.y, blockType: 'gold' },
    ],
  });
  step(w);
  w.commands.push({ kind: 'restoreBlocks' });
  step(w);
  assert.equal(w.queues.outbox, [
    { kind: 'placeBlock', x: SHORE.x + 1, y: SHORE.y, blockType: 'wood', inventory: false },
    { kind: 'placeBlock', x: SHORE.x + 2, y: SHORE.y, blockType: 'glass', inventory: false },
  ]);
  assert.is(blockAt(w.tiles, SHORE.x + 5, SHORE.y), null);
  assert.equal(toasts, [UNSUPPORTED]);
});

test.run();
