import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { soloBus } from '../../../server/cluster/bus.js';
import { budgetStore } from '../../../server/cluster/budget-store.js';

/** A bus whose Redis knows the scripts in `known` (by SHA-1) and records each command it is sent. */
function fakeRedis() {
  const known = new Set<string>();
  const sent: string[] = [];
  const bus = {
    ...soloBus('node-1'),
    clustered: true,
    async command(name: string, ...args: (string | number)[]) {
      sent.push(name);
      if (name === 'EVALSHA' && !known.has(String(args[0]))) throw new Error('NOSCRIPT No matching script. Please use EVAL.');
      if (name === 'EVAL') known.add(createHash('sha1').update(String(args[0])).digest('hex'));
      return 1;
    },
  };
  return { bus, known, sent };
}

test('a script is sent whole once, then named by its SHA-1; a Redis that forgot it is sent it again', async () => {
  const redis = fakeRedis();
  const store = budgetStore(redis.bus, () => undefined)!;
  const script = "return redis.call('INCR', KEYS[1])";
  assert.is(await store.run(script, ['k'], []), 1);
  assert.is(await store.run(script, ['k'], []), 1);
  assert.equal(redis.sent, ['EVALSHA', 'EVAL', 'EVALSHA']);
  redis.known.clear();
  assert.is(await store.run(script, ['k'], []), 1);
  assert.equal(redis.sent, ['EVALSHA', 'EVAL', 'EVALSHA', 'EVALSHA', 'EVAL']);
});

test('any other error of Redis leaves the budgets per node (the store answers null)', async () => {
  const logged: string[] = [];
  const store = budgetStore({ ...soloBus('node-1'), clustered: true, command: async () => Promise.reject(new Error('Connection is closed.')) }, (line) => logged.push(line))!;
  assert.is(await store.run('return 1', [], []), null);
  assert.equal(logged, ['budgets: Redis cannot answer (Connection is closed.); budgets are per node until it does']);
});

test.run();
