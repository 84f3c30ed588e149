import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyedSlots } from '../../../server/realtime/slots.js';

/** A task that records when it starts and runs until `finish` is called; `running` counts the tasks started and not finished, per key. */
function recorder() {
  const started: string[] = [];
  const running = new Map<string, number>();
  const finishers: Array<() => void> = [];
  let most = 0;
  let total = 0;
  const task = (key: string, name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      running.set(key, (running.get(key) ?? 0) + 1);
      most = Math.max(most, ++total);
      finishers.push(() => {
        running.set(key, running.get(key)! - 1);
        total--;
        resolve(name);
      });
    });
  /** Lets every task that reached its turn settle, so the next ones start. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  /** Finishes the oldest running task. */
  const finishOldest = async () => {
    finishers.shift()!();
    await settle();
  };
  return { started, running, task, settle, finishOldest, most: () => most };
}

test('one key runs at most perKey tasks at once, the rest start in arrival order as places free', async () => {
  const slots = new KeyedSlots(2, 10);
  const r = recorder();
  const done = ['a', 'b', 'c', 'd', 'e'].map((name) => slots.run('1.2.3.4', r.task('1.2.3.4', name)));
  await r.settle();
  assert.equal(r.started, ['a', 'b']);
  await r.finishOldest();
  assert.equal(r.started, ['a', 'b', 'c']);
  for (let i = 0; i < 4; i++) await r.finishOldest();
  assert.equal(await Promise.all(done), ['a', 'b', 'c', 'd', 'e']);
  assert.is(r.most(), 2);
});

test('the whole runs at most `total` tasks over every key, and a key flooding with tasks holds at most perKey of them', async () => {
  const slots = new KeyedSlots(2, 3);
  const r = recorder();
  const flood = Array.from({ length: 50 }, (_, i) => slots.run('hostile', r.task('hostile', `h${i}`)));
  const honest = [slots.run('honest', r.task('honest', 'x')), slots.run('other', r.task('other', 'y'))];
  await r.settle();
  assert.equal(r.started, ['h0', 'h1', 'x']);
  await r.finishOldest();
  // The freed place goes to the other key waiting for the whole, not to the flood's third task.
  assert.equal(r.started, ['h0', 'h1', 'x', 'y']);
  while (r.started.length < 52 || [...r.running.values()].some((n) => n > 0)) await r.finishOldest();
  await Promise.all([...flood, ...honest]);
  assert.is(r.most(), 3);
});

test('a task that fails gives its places back, and its key is served again', async () => {
  const slots = new KeyedSlots(1, 1);
  const failed = await slots.run('k', () => Promise.reject(new Error('check failed'))).catch((error: Error) => error.message);
  assert.is(failed, 'check failed');
  assert.is(await slots.run('k', () => Promise.resolve('next')), 'next');
});

test.run();
