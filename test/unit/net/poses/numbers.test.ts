import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STEP_MS } from '../../../../components/constants.js';
import type { NetQueues } from '../../../../components/network.js';
import { createGameWorld } from '../../../../components/world.js';
import { poseNumbering } from '../../../../net/poses/numbers.js';
import { step } from '../../../../systems/pipeline.js';

test('the first pose number is the clock step plus one, whatever the engine step, and then follows the engine', () => {
  const number = poseNumbering(1_000_000);
  assert.is(number(37), 1_000_001);
  assert.is(number(38), 1_000_002);
  assert.is(number(45), 1_000_009);
});

test('a reloaded page, whose engine counts from 1 again, numbers its poses above the old page', () => {
  const before = poseNumbering(1_000_000);
  let last = 0;
  for (let s = 1; s <= 600; s++) last = before(s);
  assert.is(last, 1_000_600);
  // 600 steps of 16 ms later on the wall clock (10 s), the new page starts at engine step 1.
  const after = poseNumbering(1_000_600);
  assert.is(after(1), 1_000_601);
});

test('the engine counts one step per step and hands that number to the session', () => {
  const world = createGameWorld();
  const queues: NetQueues = world.queues;
  const heard: number[] = [];
  queues.onStep = (n) => heard.push(n);
  for (let i = 0; i < 5; i++) step(world);
  assert.equal(heard, [1, 2, 3, 4, 5]);
  assert.is(world.step, 5);
  assert.is(world.time, 5 * STEP_MS);
});

test.run();
