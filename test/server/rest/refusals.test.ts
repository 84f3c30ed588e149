import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RestError } from '../../../server/rest/errors.js';
import { createRefusalCache } from '../../../server/rest/refusals.js';

const tooMany = (headers: Record<string, string>) => new RestError(429, 'TS429', 'Too many blocks: slow down', null, null, headers);

test('a 429 with X-Retry-After-Ms is repeated until the next token is due, then forgotten', () => {
  let now = 1000;
  const cache = createRefusalCache(() => now);
  const refusal = tooMany({ 'Retry-After': '1', 'X-Retry-After-Ms': '125' });
  cache.remember('wallet\0game_blocks\0POST', refusal);
  assert.is(cache.find('wallet\0game_blocks\0POST'), refusal);
  assert.is(cache.find('other\0game_blocks\0POST'), undefined);
  now += 124;
  assert.is(cache.find('wallet\0game_blocks\0POST'), refusal);
  now += 1;
  assert.is(cache.find('wallet\0game_blocks\0POST'), undefined);
});

test('refusals without an exact wait, and other errors, are not remembered', () => {
  const cache = createRefusalCache(() => 0);
  cache.remember('a', tooMany({ 'Retry-After': '1' }));
  cache.remember('b', new RestError(400, '23514', 'broken rule', null, null, { 'X-Retry-After-Ms': '100' }));
  cache.remember('c', tooMany({ 'X-Retry-After-Ms': 'soon' }));
  assert.is(cache.find('a'), undefined);
  assert.is(cache.find('b'), undefined);
  assert.is(cache.find('c'), undefined);
});

test.run();
