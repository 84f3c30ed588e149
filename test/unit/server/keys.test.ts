import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { keysOf, TokenError } from '../../../server/auth/keys.js';
import { sleep } from '../../support/wait.js';

const now = () => Math.floor(Date.now() / 1000);

test('a verified token is answered from memory until it expires, then refused as expired', async () => {
  const keys = await keysOf(randomBytes(48));
  const token = await keys.sign({ role: 'authenticated', sub: 'u1', iat: now(), exp: now() + 1 });
  const first = await keys.verify(token);
  assert.is(await keys.verify(token), first, 'the second check is the remembered answer');
  assert.ok(Object.isFrozen(first), 'remembered claims cannot be changed by a caller');
  await sleep(1100); // kept: the token expires by the clock
  const error = await keys.verify(token).catch((e: unknown) => e);
  assert.instance(error, TokenError);
  assert.is((error as TokenError).reason, 'expired');
});

test('a token with a changed signature is refused even while the genuine one is remembered', async () => {
  const keys = await keysOf(randomBytes(48));
  const token = await keys.sign({ role: 'authenticated', sub: 'u1', iat: now(), exp: now() + 60 });
  await keys.verify(token);
  const [header, payload] = token.split('.');
  const forged = `${header}.${payload}.${'A'.repeat(43)}`;
  const error = await keys.verify(forged).catch((e: unknown) => e);
  assert.instance(error, TokenError);
  assert.is((error as TokenError).reason, 'invalid');
});

test.run();
