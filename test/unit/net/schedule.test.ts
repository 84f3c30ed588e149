import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { everyPeriod, gatherCalls, type ScheduleClock } from '../../../net/schedule.js';

/** A clock whose time moves only when told; `advance` fires the timers that come due, each late by `lateBy(call)`. */
function fakeClock(lateBy: (call: number) => number) {
  let now = 1000;
  let pending: { at: number; run: () => void } | null = null;
  let calls = 0;
  const clock: ScheduleClock = {
    now: () => now,
    setTimeout: (run, ms) => (pending = { at: now + ms, run }),
    clearTimeout: () => (pending = null),
  };
  return {
    clock,
    /** Runs timers until `until`; returns when each ran. */
    runUntil(until: number): number[] {
      const ran: number[] = [];
      while (pending && pending.at + lateBy(calls) <= until) {
        const { at, run } = pending;
        now = at + lateBy(calls++);
        ran.push(now);
        run();
      }
      now = until;
      return ran;
    },
  };
}

test('a call that came late does not move the later ones off the schedule', () => {
  // The second call is 1.7 s late, as after a stall of the page.
  const clock = fakeClock((call) => (call === 1 ? 1700 : 0));
  const schedule = everyPeriod(5000, () => {}, clock.clock);
  assert.equal(clock.runUntil(1000 + 5000 * 5), [6000, 12700, 16000, 21000, 26000]);
  schedule.stop();
});

test('periods missed whole are skipped: one late call, then the schedule goes on', () => {
  const clock = fakeClock((call) => (call === 0 ? 12000 : 0));
  const calls: number[] = [];
  everyPeriod(5000, () => calls.push(1), clock.clock);
  assert.equal(clock.runUntil(27000), [18000, 21000, 26000]);
  assert.is(calls.length, 3);
});

test('stop ends the schedule', () => {
  const clock = fakeClock(() => 0);
  const schedule = everyPeriod(5000, () => {}, clock.clock);
  assert.equal(clock.runUntil(11000), [6000, 11000]);
  schedule.stop();
  assert.equal(clock.runUntil(40000), []);
});

test('gathered calls: a burst within the wait runs once after it, a later call runs again, and stop cancels a due run', async () => {
  let runs = 0;
  const gathered = gatherCalls(20, () => runs++);
  gathered.soon();
  gathered.soon();
  gathered.soon();
  assert.is(runs, 0);
  await sleep(60);
  assert.is(runs, 1);
  gathered.soon();
  await sleep(60);
  assert.is(runs, 2);
  gathered.soon();
  gathered.stop();
  await sleep(60);
  assert.is(runs, 2);
});

test.run();
