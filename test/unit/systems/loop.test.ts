import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KEY } from '../../../components/input.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';
import { advance } from '../../../systems/loop.js';
import { xOf } from '../../../components/transform.js';

test('real time is spent in 16 ms steps and the remainder is the interpolation fraction', () => {
  const w = createGameWorld();
  const me = spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  w.input.held = KEY.right;
  assert.is(advance(w, 40), 0.5);
  assert.is(w.time, 32);
  assert.is(xOf(w.transform, me), 6);
  assert.is(advance(w, 8), 0);
  assert.is(w.time, 48);
});

test('a long stall catches up at most 8 steps', () => {
  const w = createGameWorld();
  advance(w, 5000);
  assert.is(w.time, 128);
  assert.is(advance(w, 16), 0);
  assert.is(w.time, 144);
});

test.run();
