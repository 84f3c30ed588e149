/** Cross-origin requests: the API answers a CORS preflight and lets the page read Content-Range. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../../support/harness.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});

test.after(async () => {
  await server.stop();
});

test('CORS preflight is answered and Content-Range is exposed', async () => {
  const res = await fetch(`${server.url}/rest/v1/game_blocks`, {
    method: 'OPTIONS',
    headers: { origin: 'http://example.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'apikey, authorization, prefer' },
  });
  assert.is(res.status, 204);
  assert.is(res.headers.get('access-control-allow-origin'), 'http://example.test');
  assert.match(res.headers.get('access-control-allow-headers')!, 'prefer');
  assert.match(res.headers.get('access-control-expose-headers')!, 'Content-Range');
});

test.run();
