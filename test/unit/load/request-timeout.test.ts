import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { send } from '../../../test/support/load/rest.js';

/** A server that takes requests and never answers them, and one that answers at once. */
async function listen(answer: boolean): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    if (answer) res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v1/x` };
}

test('a request the server never answers fails as ETIMEDOUT instead of waiting forever', async () => {
  const { server, url } = await listen(false);
  try {
    const error = await send(url, 'GET', {}, undefined, undefined, 200).then(() => null, (reason: Error & { code?: string }) => reason);
    assert.is(error?.code, 'ETIMEDOUT');
    assert.match(error!.message, 'no answer within 200 ms');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('an answer in time is returned as it came', async () => {
  const { server, url } = await listen(true);
  try {
    const answer = await send(url, 'GET', {}, undefined, undefined, 200);
    assert.equal({ status: answer.status, text: answer.text }, { status: 200, text: 'ok' });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test.run();
