import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LocalAction } from '../../../components/network.js';
import type { EditOutcome } from '../../../net/blocks/edits.js';
import { createOutboxSender, MAX_UNSENT_EDITS, type OutboxLink } from '../../../net/outbox.js';

/** A link whose state the test sets; `whenOnline` waits for `set('online')` or `close()`. */
function fakeLink() {
  let online = true;
  let waiters: Array<(online: boolean) => void> = [];
  let unreachable = 0;
  const link: OutboxLink = {
    online: () => online,
    unreachable: () => {
      unreachable++;
      online = false;
    },
    whenOnline: () => (online ? Promise.resolve(true) : new Promise((resolve) => waiters.push(resolve))),
  };
  return {
    link,
    unreachable: () => unreachable,
    back() {
      online = true;
      for (const done of waiters.splice(0)) done(true);
    },
    close() {
      for (const done of waiters.splice(0)) done(false);
    },
    waiting: () => waiters.length,
  };
}

/** Blocks whose answers come from `answers` (then 'sent'), recording each call. */
function fakeBlocks(answers: EditOutcome[]) {
  const calls: string[] = [];
  const givenUp: string[] = [];
  /** Edits held (shown over chunk reads) until answered. */
  const held: string[] = [];
  const answer = () => Promise.resolve(answers.shift() ?? 'sent');
  return {
    calls,
    givenUp,
    held,
    blocks: {
      place: (x: number, y: number, blockType: string, _inventory: boolean, again?: boolean) => {
        calls.push(`place ${x},${y} ${blockType}${again ? ' again' : ''}`);
        return answer();
      },
      remove: (x: number, y: number) => {
        calls.push(`remove ${x},${y}`);
        return answer();
      },
      giveUp: (action: 'place' | 'remove', x: number, y: number) => void givenUp.push(`${action} ${x},${y}`),
      hold: (x: number, y: number, blockType: string | null) => void held.push(`${x},${y} ${blockType}`),
      release: (x: number, y: number) => void held.splice(held.findIndex((h) => h.startsWith(`${x},${y} `)), 1),
    },
  };
}

const place = (x: number): LocalAction => ({ kind: 'placeBlock', x, y: 0, blockType: 'stone', inventory: true });
const remove = (x: number): LocalAction => ({ kind: 'removeBlock', x, y: 0, blockType: 'stone' });
const hit: LocalAction = { kind: 'attack', victimId: 'v', victimName: 'V', damage: 25, victimTileX: 3, victimTileY: 0, attackerX: 64, attackerY: 0 };
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

test('an edit that did not reach the server is made again once online, and the edits after it wait in order', async () => {
  const net = fakeLink();
  const { blocks, calls, held } = fakeBlocks(['unsent']);
  const attacks: unknown[] = [];
  const sender = createOutboxSender(blocks, { attack: async (a) => attacks.push(a) > 0 }, net.link);
  sender.send([place(5), remove(6)]);
  await flush();
  assert.equal(calls, ['place 5,0 stone']);
  assert.equal(held, ['5,0 stone', '6,0 null'], 'both shown over chunk reads until answered');
  assert.is(net.unreachable(), 1);
  assert.is(net.waiting(), 1);
  sender.send([hit]);
  assert.equal(attacks, [], 'a hit made while not online is dropped');
  net.back();
  await sender.drained();
  assert.equal(calls, ['place 5,0 stone', 'place 5,0 stone again', 'remove 6,0']);
  assert.equal(held, []);
});

test(`past ${MAX_UNSENT_EDITS} edits waiting, a new one is given up at once`, async () => {
  const net = fakeLink();
  const { blocks, calls, givenUp } = fakeBlocks(['unsent']);
  const sender = createOutboxSender(blocks, { attack: async () => true }, net.link);
  sender.send(Array.from({ length: MAX_UNSENT_EDITS }, (_, i) => place(i)));
  await flush();
  assert.equal(givenUp, []);
  sender.send([place(1000), remove(1001)]);
  assert.equal(givenUp, ['place 1000,0', 'remove 1001,0']);
  net.back();
  await sender.drained();
  assert.is(calls.length, MAX_UNSENT_EDITS + 1, 'every kept edit sent, the first twice');
  sender.send([place(2000)]);
  await sender.drained();
  assert.equal(givenUp.length, 2, 'room again once they are sent');
  assert.is(calls.at(-1), 'place 2000,0 stone');
});

test('closing the session ends the wait: the waiting edit is not made again, the next is tried once, drained resolves', async () => {
  const net = fakeLink();
  const { blocks, calls } = fakeBlocks(['unsent']);
  const sender = createOutboxSender(blocks, { attack: async () => true }, net.link);
  sender.send([place(1), place(2)]);
  await flush();
  net.close();
  await sender.drained();
  assert.equal(calls, ['place 1,0 stone', 'place 2,0 stone']);
});

test('a refusal is not made again', async () => {
  const net = fakeLink();
  const { blocks, calls } = fakeBlocks(['refused']);
  const sender = createOutboxSender(blocks, { attack: async () => true }, net.link);
  sender.send([place(1)]);
  await sender.drained();
  assert.equal(calls, ['place 1,0 stone']);
  assert.is(net.unreachable(), 0);
});

test.run();
