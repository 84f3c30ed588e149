import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Claims } from '../../../server/db/index.js';
import type { WriteCheck } from '../../../server/realtime/authorization.js';
import { MAX_WRITE_CHECKS_PER_ADDRESS_IN_BATCH, MAX_WRITE_CHECKS_PER_BATCH } from '../../../server/realtime/limits.js';
import { KeyedSlots } from '../../../server/realtime/slots.js';
import { batchedWriteChecks } from '../../../server/realtime/write-checks.js';

const claimsOf = (sub: string): Claims => ({ role: 'authenticated', sub, exp: 2_000_000_000 }) as Claims;

/** The fake write policies: a caller writes to `region:` topics named after it (`region:<sub>:…`) only. */
const allowed = ({ claims, topic }: WriteCheck) => topic.startsWith(`region:${claims.sub}:`);

/** A fake database: records each transaction's checks as `sub topic`; a topic named `raise` fails its transaction with `code`. */
function fakeDatabase(code = 'P0001') {
  const transactions: string[][] = [];
  const run = async (checks: readonly WriteCheck[]) => {
    transactions.push(checks.map(({ claims, topic }) => `${claims.sub} ${topic}`));
    await new Promise((resolve) => setImmediate(resolve));
    if (checks.some(({ topic }) => topic === 'raise')) throw Object.assign(new Error('policy raised'), { code });
    return checks.map(allowed);
  };
  return { transactions, run };
}

/** Each check's verdict, or the message of its failure. */
const outcomes = (checks: Array<Promise<boolean>>) => Promise.all(checks.map((check) => check.catch((error: Error) => error.message)));

const check = (sub: string, topic: string): WriteCheck => ({ claims: claimsOf(sub), topic, extension: 'broadcast' });

test('checks of different callers and addresses in one turn run as one transaction; each verdict is its own caller\'s', async () => {
  const db = fakeDatabase();
  const writeCheck = batchedWriteChecks(new KeyedSlots(1, 4), db.run);
  const checks = [check('alice', 'region:alice:1'), check('bob', 'region:alice:1'), check('bob', 'region:bob:2'), check('carol', 'region:carol:3')];
  const verdicts = await outcomes(checks.map((one, i) => writeCheck(one, `10.0.0.${i}`)));
  assert.equal(verdicts, [true, false, true, true]);
  assert.equal(db.transactions, [['alice region:alice:1', 'bob region:alice:1', 'bob region:bob:2', 'carol region:carol:3']]);
});

test('checks that arrive while a batch waits for the server\'s place join it; the next batch takes them all', async () => {
  const db = fakeDatabase();
  const slots = new KeyedSlots(1, 1);
  const writeCheck = batchedWriteChecks(slots, db.run);
  let release = () => {};
  const holding = slots.runShared(() => new Promise<void>((resolve) => (release = resolve)));
  const first = writeCheck(check('alice', 'region:alice:1'), '10.0.0.1');
  await new Promise((resolve) => setImmediate(resolve));
  const later = [writeCheck(check('bob', 'region:bob:1'), '10.0.0.2'), writeCheck(check('alice', 'region:alice:2'), '10.0.0.1')];
  release();
  await holding;
  assert.equal(await outcomes([first, ...later]), [true, true, true]);
  assert.equal(db.transactions, [['alice region:alice:1', 'alice region:alice:2', 'bob region:bob:1']]);
});

test(`hostile: one address gets ${MAX_WRITE_CHECKS_PER_ADDRESS_IN_BATCH} checks a batch while others wait; a batch holds at most ${MAX_WRITE_CHECKS_PER_BATCH}`, async () => {
  const db = fakeDatabase();
  const writeCheck = batchedWriteChecks(new KeyedSlots(1, 1), db.run);
  const flood = Array.from({ length: 3 * MAX_WRITE_CHECKS_PER_BATCH }, (_, i) => writeCheck(check('mallory', `region:mallory:${i}`), '10.6.6.6'));
  const honest = Array.from({ length: MAX_WRITE_CHECKS_PER_BATCH }, (_, i) => writeCheck(check(`p${i}`, `region:p${i}:0`), `10.0.1.${i}`));
  const verdicts = await outcomes([...flood, ...honest]);
  assert.ok(verdicts.every((verdict) => verdict === true));
  const sizes = db.transactions.map((transaction) => transaction.length);
  assert.ok(sizes.every((size) => size <= MAX_WRITE_CHECKS_PER_BATCH), `batches of ${sizes.join(', ')}`);
  const mallorys = (transaction: string[]) => transaction.filter((one) => one.startsWith('mallory ')).length;
  assert.equal(mallorys(db.transactions[0]!), MAX_WRITE_CHECKS_PER_ADDRESS_IN_BATCH);
  // Every honest check is answered in the first two batches, beside at most the flood's share of each.
  const honestBatches = db.transactions.map((transaction, i) => (transaction.some((one) => !one.startsWith('mallory ')) ? i : -1)).filter((i) => i >= 0);
  assert.equal(honestBatches, [0, 1]);
  assert.equal(mallorys(db.transactions[1]!), MAX_WRITE_CHECKS_PER_ADDRESS_IN_BATCH);
});

test('hostile: a topic whose policy raises fails alone; the batch is run again one check at a time and answers the rest', async () => {
  const db = fakeDatabase();
  const writeCheck = batchedWriteChecks(new KeyedSlots(1, 4), db.run);
  const verdicts = await outcomes([check('alice', 'region:alice:1'), check('bob', 'raise'), check('bob', 'region:alice:1')].map((one, i) => writeCheck(one, `10.0.0.${i}`)));
  assert.equal(verdicts, [true, 'policy raised', false]);
  assert.equal(db.transactions, [['alice region:alice:1', 'bob raise', 'bob region:alice:1'], ['alice region:alice:1'], ['bob raise'], ['bob region:alice:1']]);
});

test('a batch cancelled by its time budget is not run again: every check of it fails, nothing granted', async () => {
  const db = fakeDatabase('57014');
  const writeCheck = batchedWriteChecks(new KeyedSlots(1, 4), db.run);
  const verdicts = await outcomes([check('alice', 'region:alice:1'), check('bob', 'raise')].map((one, i) => writeCheck(one, `10.0.0.${i}`)));
  assert.equal(verdicts, ['policy raised', 'policy raised']);
  assert.equal(db.transactions.length, 1);
});

test.run();
