import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KEY } from '../../../components/input.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';
import { applyKey } from '../../../src/game/keys.js';

test('keys 1-8 select hotbar entries 0-7; 9 and 0 do nothing', () => {
  const w = createGameWorld();
  spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  const selected: number[] = [];
  for (const code of ['Digit3', 'Digit8', 'Numpad1', 'Digit9', 'Digit0']) {
    assert.is(applyKey(w.input, code, true), code !== 'Digit9' && code !== 'Digit0');
    step(w);
    selected.push(w.inventory.selectedSlot);
  }
  assert.equal(selected, [2, 7, 0, 0, 0]);
});

test('WASD and arrows set and clear movement bits', () => {
  const w = createGameWorld();
  applyKey(w.input, 'KeyW', true);
  applyKey(w.input, 'ArrowRight', true);
  assert.is(w.input.held, KEY.up | KEY.right);
  applyKey(w.input, 'KeyW', false);
  applyKey(w.input, 'KeyA', true);
  applyKey(w.input, 'ArrowDown', true);
  assert.is(w.input.held, KEY.right | KEY.left | KEY.down);
  assert.is(applyKey(w.input, 'KeyQ', true), false);
});

test('Space starts one swing', () => {
  const w = createGameWorld();
  const me = spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  applyKey(w.input, 'Space', true);
  step(w);
  assert.is(w.combat.swinging[me], 1);
  assert.is(w.combat.swingStart[me], 16);
  applyKey(w.input, 'Space', false);
  for (let i = 0; i < 19; i++) step(w);
  assert.is(w.combat.swinging[me], 0);
});


test('Ctrl+Z undoes and Ctrl+Shift+Z redoes; Z alone does nothing', () => {
  const w = createGameWorld();
  assert.is(applyKey(w.input, 'KeyZ', true), false);
  assert.is(applyKey(w.input, 'KeyZ', true, { ctrl: true, shift: false }), true);
  assert.is(applyKey(w.input, 'KeyZ', false, { ctrl: true, shift: false }), true);
  assert.is(applyKey(w.input, 'KeyZ', true, { ctrl: true, shift: true }), true);
  assert.equal(w.input.edits, ['undo', 'redo']);
});

test.run();
