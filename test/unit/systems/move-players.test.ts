import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WORLD_MAX_X, WORLD_MAX_Y, WORLD_MIN_X, WORLD_MIN_Y } from '../../../components/constants.js';
import { KEY } from '../../../components/input.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';
import { xOf, yOf } from '../../../components/transform.js';

function world(x = 0, y = 0) {
  const w = createGameWorld({ seed: 1 });
  const eid = spawnLocalPlayer(w, { id: 'me', name: 'Me', x, y });
  return { w, eid };
}

function run(w: ReturnType<typeof createGameWorld>, n: number) {
  for (let i = 0; i < n; i++) step(w);
}

test('walking right for 10 steps moves exactly 30 px', () => {
  const { w, eid } = world();
  w.input.held = KEY.right;
  run(w, 10);
  assert.is(xOf(w.transform, eid), 30);
  assert.is(yOf(w.transform, eid), 0);
  assert.is(w.transform.prev[2 * eid], 27);
  assert.is(w.motion.moving[eid], 1);
});

test('up and left move by -3 per step; releasing stops', () => {
  const { w, eid } = world(100, 100);
  w.input.held = KEY.up;
  run(w, 5);
  assert.is(yOf(w.transform, eid), 85);
  w.input.held = KEY.left;
  run(w, 4);
  assert.is(xOf(w.transform, eid), 88);
  w.input.held = 0;
  run(w, 3);
  assert.is(xOf(w.transform, eid), 88);
  assert.is(yOf(w.transform, eid), 85);
  assert.is(w.motion.moving[eid], 0);
});

test('opposite keys cancel out', () => {
  const { w, eid } = world();
  w.input.held = KEY.left | KEY.right | KEY.down;
  run(w, 4);
  assert.is(xOf(w.transform, eid), 0);
  assert.is(yOf(w.transform, eid), 12);
});

test('diagonal speed is normalised to 3 px per step', () => {
  const { w, eid } = world();
  w.input.held = KEY.right | KEY.down;
  step(w);
  const dx = xOf(w.transform, eid);
  assert.is(dx, yOf(w.transform, eid));
  assert.ok(Math.abs(Math.hypot(dx, dx) - 3) < 1e-6);
  run(w, 99);
  assert.is(xOf(w.transform, eid), yOf(w.transform, eid));
  assert.ok(Math.abs(xOf(w.transform, eid) - 300 * Math.SQRT1_2) < 1e-3);
});

test('players cannot leave the world', () => {
  const { w, eid } = world(WORLD_MAX_X - 1, WORLD_MAX_Y - 2);
  w.input.held = KEY.right | KEY.down;
  run(w, 5);
  assert.is(xOf(w.transform, eid), WORLD_MAX_X);
  assert.is(yOf(w.transform, eid), WORLD_MAX_Y);
  assert.is(WORLD_MAX_X, 160000 - 12);
  const other = world(WORLD_MIN_X + 2, WORLD_MIN_Y + 1);
  other.w.input.held = KEY.left | KEY.up;
  run(other.w, 5);
  assert.is(xOf(other.w.transform, other.eid), -160000 + 12);
  assert.is(yOf(other.w.transform, other.eid), -160000 + 16);
});

test.run();
