import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DRAIN_GAP_MS, UPDATE_GAP_MS, UPDATES_PAYLOAD, createLane, urgencyOf } from '../../../server/realtime/lane.js';

/** A drain that records when each run began and finishes when told; `left` says whether a run leaves rows behind. */
function drains() {
  const began: number[] = [];
  const finishers: Array<(left: boolean) => void> = [];
  const errors: unknown[] = [];
  const drainOnce = () =>
    new Promise<boolean>((resolve, reject) => {
      began.push(performance.now());
      if (fail.next) {
        fail.next = false;
        reject(new Error('drain failed'));
      } else finishers.push(resolve);
    });
  const fail = { next: false };
  /** Finishes the oldest running drain and lets the lane see it. */
  const finish = async (left = false) => {
    finishers.shift()!(left);
    await new Promise((resolve) => setImmediate(resolve));
  };
  const lane = createLane(drainOnce, (error) => errors.push(error));
  return { began, finish, lane, errors, fail };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a NOTIFY of updates only asks for a later drain; any other payload for one now', () => {
  assert.is(urgencyOf(UPDATES_PAYLOAD), 'soon');
  assert.is(urgencyOf(''), 'now');
});

test('a wake on an idle lane drains at once, whatever its urgency', async () => {
  const d = drains();
  d.lane.wake('soon');
  assert.is(d.began.length, 1);
  await d.finish();
  await d.lane.idle();
  assert.is(d.began.length, 1);
});

test('updates that come while a drain runs are drained together, UPDATE_GAP_MS after it began', async () => {
  const d = drains();
  d.lane.wake('now');
  for (let i = 0; i < 5; i++) d.lane.wake('soon');
  await d.finish();
  await sleep(UPDATE_GAP_MS * 1.5);
  assert.is(d.began.length, 2, 'one drain for all five');
  // The lane measures again when its timer fires; a millisecond of slack for rounding.
  assert.ok(d.began[1]! - d.began[0]! >= UPDATE_GAP_MS - 1, 'updates wait UPDATE_GAP_MS, not DRAIN_GAP_MS');
  await d.finish();
});

test('an insert or delete waiting behind updates is drained within DRAIN_GAP_MS, taking the updates with it', async () => {
  const d = drains();
  d.lane.wake('now');
  d.lane.wake('soon');
  await d.finish();
  d.lane.wake('now');
  await sleep(UPDATE_GAP_MS * 0.8);
  assert.is(d.began.length, 2);
  assert.ok(d.began[1]! - d.began[0]! >= DRAIN_GAP_MS - 1);
  await d.finish();
  await d.lane.idle();
  assert.is(d.began.length, 2);
});

test('a drain that left rows behind is followed by another without a wake', async () => {
  const d = drains();
  d.lane.wake('soon');
  await d.finish(true);
  await sleep(UPDATE_GAP_MS * 0.8);
  assert.is(d.began.length, 2);
  await d.finish();
  await d.lane.idle();
  assert.is(d.began.length, 2);
});

test('idle() starts a waiting drain at once and resolves when it is done', async () => {
  const d = drains();
  d.lane.wake('now');
  d.lane.wake('soon');
  await d.finish();
  assert.is(d.began.length, 1);
  const idle = d.lane.idle();
  assert.is(d.began.length, 2, 'no UPDATE_GAP_MS wait');
  let resolved = false;
  void idle.then(() => (resolved = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(resolved, false);
  await d.finish();
  await idle;
});

test('a failed drain is reported and the next wake drains again', async () => {
  const d = drains();
  d.fail.next = true;
  d.lane.wake('now');
  await new Promise((resolve) => setImmediate(resolve));
  await d.lane.idle();
  assert.is(d.errors.length, 1);
  d.lane.wake('now');
  await sleep(DRAIN_GAP_MS * 2);
  assert.is(d.began.length, 2);
  await d.finish();
  await d.lane.idle();
  assert.is(d.errors.length, 1);
});

test.run();
