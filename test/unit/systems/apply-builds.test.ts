import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Toast } from '../../../components/hud.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { blockAt } from '../../../components/tiles.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';

function setup() {
  const toasts: Toast[] = [];
  const w = createGameWorld({ hud: { set() {}, toast: (t) => toasts.push(t) } });
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

test.run();
