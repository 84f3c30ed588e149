import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { createTestClient, createTestWallet, signInPlayer, startTestServer, type TestServer } from '../../support/harness.js';
import { postWeb3, siwsMessage } from '../../support/web3-grant.js';
import { sleep } from '../../support/wait.js';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});

test.after(async () => {
  await server.stop();
});

test('web3 sign-in returns a GoTrue session with the Web3 claims', async () => {
  const { client, address } = await signInPlayer(server);
  const { data } = await client.auth.getSession();
  const session = data.session!;
  assert.is(session.token_type, 'bearer');
  assert.is(session.expires_in, 3600);
  assert.type(session.refresh_token, 'string');
  const claims = decodeJwt(session.access_token);
  assert.is(claims.role, 'authenticated');
  assert.is(claims.aud, 'authenticated');
  assert.is(claims.sub, session.user.id);
  assert.is((claims.exp as number) - (claims.iat as number), 3600);
  assert.is(claims.iss, `${server.url}/auth/v1`);
  assert.equal(claims.app_metadata, { provider: 'web3', providers: ['web3'] });
  const meta = claims.user_metadata as { sub: string; custom_claims: Record<string, string> };
  assert.is(meta.sub, `web3:solana:${address}`);
  assert.is(meta.custom_claims.address, address);
  assert.is(meta.custom_claims.chain, 'solana');
  assert.is(claims.aal, 'aal1');
  assert.type(claims.session_id, 'string');
  assert.is(session.user.identities?.[0]?.provider, 'web3');
});

test('signing in twice with one wallet gives the same user', async () => {
  const wallet = createTestWallet();
  const first = await signInPlayer(server, wallet);
  const second = await signInPlayer(server, wallet);
  const a = (await first.client.auth.getUser()).data.user!;
  const b = (await second.client.auth.getUser()).data.user!;
  assert.is(a.id, b.id);
});

test('a signature by another key is refused', async () => {
  const victim = createTestWallet();
  const forger = createTestWallet();
  const client = createTestClient(server);
  const { data, error } = await client.auth.signInWithWeb3({
    chain: 'solana',
    wallet: { publicKey: victim.publicKey, signMessage: forger.signMessage },
    options: { url: server.url },
  });
  assert.is(data.session, null);
  assert.is(error?.status, 400);
  assert.match(error!.message, 'Signature does not match address in message');
});

test('a message altered after signing is refused', async () => {
  const wallet = createTestWallet();
  const message = siwsMessage(wallet.address, { url: server.url });
  const signature = Buffer.from(await wallet.signMessage(new TextEncoder().encode(message))).toString('base64url');
  const altered = message.replace('Sign in to Tessera', 'Sign in to Tesserb');
  const res = await postWeb3(server, JSON.stringify({ chain: 'solana', message: altered, signature }));
  assert.is(res.status, 400);
  assert.equal(res.body, { error: 'invalid_grant', error_description: 'Signature does not match address in message' });
});

test('a malformed signature is a validation error', async () => {
  const wallet = createTestWallet();
  const message = siwsMessage(wallet.address, { url: server.url });
  const res = await postWeb3(server, JSON.stringify({ chain: 'solana', message, signature: Buffer.alloc(10).toString('base64url') }));
  assert.is(res.status, 400);
  assert.is(res.body!.code, 'validation_failed');
});

test('refresh rotates the refresh token and issues a new access token', async () => {
  const { client } = await signInPlayer(server);
  const before = (await client.auth.getSession()).data.session!;
  await sleep(1100); // kept: tokens are stamped in whole seconds, so the new one differs
  const { data, error } = await client.auth.refreshSession();
  assert.is(error, null);
  assert.is.not(data.session!.refresh_token, before.refresh_token);
  assert.is.not(data.session!.access_token, before.access_token);
  assert.is(decodeJwt(data.session!.access_token).session_id, decodeJwt(before.access_token).session_id);
  const { error: rowsError } = await client.from('game_blocks').select('x').limit(1);
  assert.is(rowsError, null);
});

test('an unknown refresh token is refused', async () => {
  const res = await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token: 'nope' }),
  });
  assert.is(res.status, 400);
  assert.is(((await res.json()) as { code: string }).code, 'refresh_token_not_found');
});

test('logout ends the session: its refresh token no longer works', async () => {
  const { client } = await signInPlayer(server);
  const refreshToken = (await client.auth.getSession()).data.session!.refresh_token;
  const { error } = await client.auth.signOut();
  assert.is(error, null);
  const res = await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token: refreshToken }),
  });
  assert.is(res.status, 400);
});

test('GET /user refuses a forged token', async () => {
  const res = await fetch(`${server.url}/auth/v1/user`, {
    headers: { apikey: server.anonKey, authorization: `Bearer ${server.anonKey.slice(0, -2)}xx` },
  });
  assert.is(res.status, 403);
});

test.run();
