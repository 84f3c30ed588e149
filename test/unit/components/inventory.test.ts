import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clickInventorySlot, createInventory, inventoryView, takeBlock } from '../../../components/inventory.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';

test('the starting inventory holds the 16 stacks of docs/game-rules.md §3, the first 8 on the hotbar', () => {
  const view = inventoryView(createInventory());
  assert.is(view.items.length, 32);
  assert.equal(
    view.items.slice(0, 16).map((it) => `${it!.name} ${it!.quantity}`),
    ['Stone 64', 'Wood 32', 'Brick 16', 'Dirt 48', 'Gold 8', 'Iron 24', 'Diamond 4', 'Emerald 3', 'Coal 40', 'Obsidian 12', 'Glass 20', 'Sand 50', 'Cobblestone 64', 'Marble 16', 'Copper 30', 'Redstone 25'],
  );
  assert.equal(view.items.slice(16), new Array(16).fill(null));
  assert.equal(view.hotbar, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.is(view.selectedSlot, 0);
});

test('a clicked item goes to the selected hotbar entry when none is empty', () => {
  const inv = createInventory();
  inv.selectedSlot = 3;
  clickInventorySlot(inv, 12);
  assert.equal(inv.hotbar, [0, 1, 2, 12, 4, 5, 6, 7]);
});

test('a clicked item goes to the first empty hotbar entry when there is one', () => {
  const inv = createInventory();
  inv.hotbar[5] = null;
  inv.hotbar[2] = null;
  inv.selectedSlot = 6;
  clickInventorySlot(inv, 9);
  assert.equal(inv.hotbar, [0, 1, 9, 3, 4, null, 6, 7]);
  clickInventorySlot(inv, 10);
  assert.equal(inv.hotbar, [0, 1, 9, 3, 4, 10, 6, 7]);
});

test('clicking an empty slot or an item already on the hotbar changes nothing', () => {
  const inv = createInventory();
  for (let i = 0; i < 7; i++) takeBlock(inv, 'emerald');
  const version = inv.version;
  clickInventorySlot(inv, 7);
  clickInventorySlot(inv, 20);
  clickInventorySlot(inv, 2);
  assert.equal(inv.hotbar, [0, 1, 2, 3, 4, 5, 6, null]);
  assert.is(inv.version, version);
});

test('inventoryClick and selectSlot commands are applied by the next step', () => {
  const w = createGameWorld();
  spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  w.commands.push({ kind: 'selectSlot', slot: 6 }, { kind: 'inventoryClick', slot: 15 }, { kind: 'selectSlot', slot: 9 });
  step(w);
  assert.is(w.inventory.selectedSlot, 6);
  assert.equal(w.inventory.hotbar, [0, 1, 2, 3, 4, 5, 15, 7]);
  assert.is(w.commands.length, 0);
});

test.run();
