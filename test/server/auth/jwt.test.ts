/**
 * Access tokens are checked by their signature and expiry: REST answers a forged or expired JWT
 * with 401 and PostgREST's code for each.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SignJWT } from 'jose';
import { startTestServer, type TestServer } from '../../support/harness.js';
import { readJwtSecret } from '../../support/server.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});

test.after(async () => {
  await server.stop();
});

test('forged and expired JWTs are 401', async () => {
  const forged = await fetch(`${server.url}/rest/v1/game_blocks`, {
    headers: { apikey: server.anonKey, authorization: `Bearer ${server.anonKey.slice(0, -3)}abc` },
  });
  assert.is(forged.status, 401);
  assert.is(((await forged.json()) as { code: string }).code, 'PGRST301');
  const secret = Buffer.from(await readJwtSecret(server), 'base64url');
  const now = Math.floor(Date.now() / 1000);
  const expired = await new SignJWT({ role: 'authenticated', iat: now - 7200, exp: now - 3600 })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new Uint8Array(secret));
  const res = await fetch(`${server.url}/rest/v1/game_blocks`, { headers: { apikey: server.anonKey, authorization: `Bearer ${expired}` } });
  assert.is(res.status, 401);
  assert.is(((await res.json()) as { code: string }).code, 'PGRST303');
});

test.run();
