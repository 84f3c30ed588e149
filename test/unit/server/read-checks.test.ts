import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Claims } from '../../../server/db/index.js';
import type { ReadVerdict } from '../../../server/realtime/authorization.js';
import { JOIN_WAITED_TOO_LONG, MAX_READ_CHECKS_PER_BATCH } from '../../../server/realtime/limits.js';
import { batchedReadChecks } from '../../../server/realtime/read-checks.js';
import { KeyedSlots } from '../../../server/realtime/slots.js';

const alice: Claims = { role: 'authenticated', sub: 'alice', exp: 2_000_000_000 } as Claims;
const bob: Claims = { role: 'authenticated', sub: 'bob', exp: 2_000_000_000 } as Claims;

/** The verdict the fake policies give: broadcast on `region:` topics, presence nowhere, the caller named by its subject. */
const verdictOf = (claims: Claims, topic: string): ReadVerdict => ({ broadcast: topic.startsWith('region:'), presence: false, sender: claims.sub ?? null });

/** A fake database: records each transaction's caller and topics; a topic named `raise` fails its transaction with `code`. */
function fakeDatabase(code = 'P0001') {
  const transactions: Array<{ sub: string; topics: string[] }> = [];
  const run = async (claims: Claims, topics: readonly string[]) => {
    transactions.push({ sub: claims.sub!, topics: [...topics] });
    await new Promise((resolve) => setImmediate(resolve));
    if (topics.includes('raise')) throw Object.assign(new Error('policy raised'), { code });
    return topics.map((topic) => verdictOf(claims, topic));
  };
  return { transactions, run };
}

/** Each check's verdict, or the message of its failure. */
const outcomes = (checks: Array<Promise<ReadVerdict>>) => Promise.all(checks.map((check) => check.catch((error: Error) => error.message)));

test('checks of one caller in one turn run as one transaction; each verdict is its own topic\'s', async () => {
  const db = fakeDatabase();
  const check = batchedReadChecks(new KeyedSlots(1, 4), db.run);
  const topics = ['region:0:0', 'region:0:1', 'blocks:0:0', 'lobby'];
  const verdicts = await outcomes(topics.map((topic) => check(alice, topic, '10.0.0.1', Infinity)));
  assert.equal(verdicts, topics.map((topic) => verdictOf(alice, topic)));
  assert.equal(db.transactions, [{ sub: 'alice', topics }]);
});

test('checks that arrive while the caller\'s batch waits for its address\'s place join it; other callers and addresses batch apart', async () => {
  const db = fakeDatabase();
  const check = batchedReadChecks(new KeyedSlots(1, 4), db.run);
  const first = check(alice, 'region:0:0', '10.0.0.1', Infinity);
  await new Promise((resolve) => setImmediate(resolve));
  // The first batch holds the address's one place; these wait, gathered, behind it.
  const later = [check(alice, 'region:1:1', '10.0.0.1', Infinity), check(bob, 'region:1:1', '10.0.0.1', Infinity), check(alice, 'region:2:2', '10.0.0.1', Infinity), check(alice, 'region:3:3', '10.0.0.2', Infinity)];
  await outcomes([first, ...later]);
  assert.equal(db.transactions[0], { sub: 'alice', topics: ['region:0:0'] });
  const rest = db.transactions.slice(1).map(({ sub, topics }) => `${sub} ${topics.join(',')}`).sort();
  assert.equal(rest, ['alice region:1:1,region:2:2', 'alice region:3:3', 'bob region:1:1']);
});

test(`a batch holds at most ${MAX_READ_CHECKS_PER_BATCH} checks; the next start another`, async () => {
  const db = fakeDatabase();
  const check = batchedReadChecks(new KeyedSlots(1, 4), db.run);
  const topics = Array.from({ length: MAX_READ_CHECKS_PER_BATCH + 3 }, (_, i) => `region:${i}:0`);
  const verdicts = await outcomes(topics.map((topic) => check(alice, topic, '10.0.0.1', Infinity)));
  assert.equal(verdicts, topics.map((topic) => verdictOf(alice, topic)));
  assert.equal(db.transactions.map((transaction) => transaction.topics.length), [MAX_READ_CHECKS_PER_BATCH, 3]);
});

test('hostile: a topic whose policy raises fails alone; the batch is run again one check at a time and grants the rest', async () => {
  const db = fakeDatabase();
  const check = batchedReadChecks(new KeyedSlots(1, 4), db.run);
  const verdicts = await outcomes(['region:0:0', 'raise', 'blocks:0:0'].map((topic) => check(alice, topic, '10.0.0.1', Infinity)));
  assert.equal(verdicts, [verdictOf(alice, 'region:0:0'), 'policy raised', verdictOf(alice, 'blocks:0:0')]);
  assert.equal(db.transactions.map((transaction) => transaction.topics), [['region:0:0', 'raise', 'blocks:0:0'], ['region:0:0'], ['raise'], ['blocks:0:0']]);
});

test('a batch cancelled by its time budget is not run again: every check of it fails, nothing granted', async () => {
  const db = fakeDatabase('57014');
  const check = batchedReadChecks(new KeyedSlots(1, 4), db.run);
  const verdicts = await outcomes(['region:0:0', 'raise'].map((topic) => check(alice, topic, '10.0.0.1', Infinity)));
  assert.equal(verdicts, ['policy raised', 'policy raised']);
  assert.equal(db.transactions.length, 1);
});

test('a check whose deadline passed while it waited for its place is refused unchecked; the rest of its batch is run', async () => {
  const db = fakeDatabase();
  const slots = new KeyedSlots(1, 4);
  const check = batchedReadChecks(slots, db.run);
  let release = () => {};
  const holding = slots.run('10.0.0.1', () => new Promise<void>((resolve) => (release = resolve)));
  const checks = [check(alice, 'region:1:1', '10.0.0.1', performance.now() + 1), check(alice, 'region:2:2', '10.0.0.1', Infinity)];
  await new Promise((resolve) => setTimeout(resolve, 5));
  release();
  await holding;
  assert.equal(await outcomes(checks), [JOIN_WAITED_TOO_LONG, verdictOf(alice, 'region:2:2')]);
  assert.equal(db.transactions, [{ sub: 'alice', topics: ['region:2:2'] }]);
});

test.run();
