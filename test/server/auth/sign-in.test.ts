/**
 * Sign-in is bound to this site (SITE_URL and its allow-list), accepts a signed message once
 * and only in its time, ignores the Host header, and is rate-limited per IP and per wallet.
 * Every refusal stands beside the same request made honestly.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { createTestWallet, removeDataDir, signInPlayer, startTestServer, type TestServer } from '../../support/harness.js';
import { postWeb3, rawRequest, signedGrant, type MessageFields, type RawResponse } from '../../support/web3-grant.js';

const MINUTE = 60_000;

function refusedWith(res: RawResponse, description: string): void {
  assert.is(res.status, 400);
  assert.equal(res.body, { error: 'invalid_grant', error_description: description });
}

function accepted(res: RawResponse): void {
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.type(res.body!.access_token, 'string');
}

/** Signs `fields` with a fresh wallet and posts it. */
async function attempt(server: TestServer, fields: MessageFields, headers: Record<string, string> = {}): Promise<RawResponse> {
  return postWeb3(server, await signedGrant(createTestWallet(), fields), headers);
}

const URI_NOT_ALLOWED = 'Signed Solana message is using URI which is not allowed on this server, message was signed for another app';
const DOMAIN_MISMATCH = 'Signed Solana message is using a Domain that does not match the one in URI which is not allowed on this server';

const local = suite<{ server: TestServer }>('sign-in on the default loopback site');
local.before(async (ctx) => {
  ctx.server = await startTestServer();
});
local.after(async ({ server }) => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

local('a foreign Domain is refused, also with a localhost URI; this site\'s Domain is accepted', async ({ server }) => {
  refusedWith(await attempt(server, { url: server.url, domain: 'evil.example' }), DOMAIN_MISMATCH);
  refusedWith(await attempt(server, { url: server.url, domain: 'evil.example', uri: 'http://localhost/' }), URI_NOT_ALLOWED);
  accepted(await attempt(server, { url: server.url }));
});

local('a foreign URI is refused', async ({ server }) => {
  refusedWith(await attempt(server, { url: 'https://evil.example/' }), URI_NOT_ALLOWED);
  refusedWith(await attempt(server, { url: 'http://127.0.0.1/' }), URI_NOT_ALLOWED);
});

local('the three loopback origins of this port are allowed; another port is not', async ({ server }) => {
  const port = Number(new URL(server.url).port);
  for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]) {
    accepted(await attempt(server, { url: `${origin}/` }));
  }
  refusedWith(await attempt(server, { url: `http://localhost:${port + 1}/` }), URI_NOT_ALLOWED);
});

local('Issued At more than a minute ahead is refused; 30 s ahead is accepted', async ({ server }) => {
  const res = await attempt(server, { url: server.url, issuedAt: new Date(Date.now() + 5 * MINUTE) });
  refusedWith(res, 'Solana message was issued too far in the future');
  accepted(await attempt(server, { url: server.url, issuedAt: new Date(Date.now() + 30_000) }));
});

local('Issued At more than 10 minutes old is refused; 9 minutes old is accepted', async ({ server }) => {
  refusedWith(await attempt(server, { url: server.url, issuedAt: new Date(Date.now() - 11 * MINUTE) }), 'Solana message was issued too long ago');
  accepted(await attempt(server, { url: server.url, issuedAt: new Date(Date.now() - 9 * MINUTE) }));
});

local('Not Before in the future is refused; in the past it is accepted', async ({ server }) => {
  const later = await attempt(server, { url: server.url, notBefore: new Date(Date.now() + 2 * MINUTE) });
  refusedWith(later, 'Signed Solana message becomes valid in the future');
  accepted(await attempt(server, { url: server.url, notBefore: new Date(Date.now() - MINUTE) }));
});

local('Expiration Time in the past is refused; in the future it is accepted', async ({ server }) => {
  refusedWith(await attempt(server, { url: server.url, expirationTime: new Date(Date.now() - 1000) }), 'Signed Solana message is expired');
  accepted(await attempt(server, { url: server.url, expirationTime: new Date(Date.now() + MINUTE) }));
});

local('a signed message is accepted once; the replay is refused, a new message of the wallet is not', async ({ server }) => {
  const wallet = createTestWallet();
  const grant = await signedGrant(wallet, { url: server.url });
  accepted(await postWeb3(server, grant));
  refusedWith(await postWeb3(server, grant), 'Signed Solana message has already been used');
  accepted(await postWeb3(server, await signedGrant(wallet, { url: server.url, issuedAt: new Date(Date.now() + 1) })));
});

local('the Host header decides nothing: issuer, config.json and accepted Domain stay this site\'s', async ({ server }) => {
  const evil = { host: 'evil.example' };
  const config = await rawRequest(server, 'GET', '/config.json', evil);
  assert.is(config.body!.supabaseUrl, server.url);
  refusedWith(await attempt(server, { url: 'http://evil.example/' }, evil), URI_NOT_ALLOWED);
  const res = await attempt(server, { url: server.url }, evil);
  accepted(res);
  assert.is(decodeJwt(String(res.body!.access_token)).iss, `${server.url}/auth/v1`);
});

local.run();

const configured = suite<{ server: TestServer }>('sign-in on a configured SITE_URL with an allow-list');
configured.before(async (ctx) => {
  ctx.server = await startTestServer(undefined, {
    SITE_URL: 'https://tessera.example',
    ADDITIONAL_REDIRECT_URLS: 'https://*.preview.tessera.example/**, http://localhost:4000/play',
  });
});
configured.after(async ({ server }) => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

configured('the site and allow-listed URLs sign in; loopback is no longer allowed', async ({ server }) => {
  const site = await attempt(server, { url: 'https://tessera.example/' });
  accepted(site);
  assert.is(decodeJwt(String(site.body!.access_token)).iss, 'https://tessera.example/auth/v1');
  accepted(await attempt(server, { url: 'https://pr-7.preview.tessera.example/game?x=1' }));
  accepted(await attempt(server, { url: 'http://localhost:4000/play/' }));
  refusedWith(await attempt(server, { url: 'http://localhost:4000/other' }), URI_NOT_ALLOWED);
  refusedWith(await attempt(server, { url: 'https://a.b.preview.tessera.example/' }), URI_NOT_ALLOWED);
  refusedWith(await attempt(server, { url: 'http://tessera.example/' }), URI_NOT_ALLOWED);
  refusedWith(await attempt(server, { url: server.url }), URI_NOT_ALLOWED);
});

configured('a Domain of another allowed host does not pass for the URI\'s host', async ({ server }) => {
  const res = await attempt(server, { url: 'https://tessera.example/', domain: 'pr-7.preview.tessera.example' });
  refusedWith(res, DOMAIN_MISMATCH);
});

configured('config.json names SITE_URL, whatever the Host', async ({ server }) => {
  const config = await rawRequest(server, 'GET', '/config.json', { host: 'evil.example' });
  assert.is(config.body!.supabaseUrl, 'https://tessera.example');
});

configured.run();

const limited = suite<{ server: TestServer }>('sign-in rate limits');
const IP_LIMIT = 14;
limited.before(async (ctx) => {
  ctx.server = await startTestServer(undefined, { RATE_LIMIT_WEB3: String(IP_LIMIT) });
});
limited.after(async ({ server }) => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

function overLimit(res: RawResponse): void {
  assert.is(res.status, 429);
  assert.equal(res.body, { code: 'over_request_rate_limit', message: 'Request rate limit reached' });
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(retryAfter > 290 && retryAfter <= 300, `Retry-After ${retryAfter}`);
}

limited('one wallet signs in 10 times in 5 minutes, the 11th is refused; another wallet still signs in', async ({ server }) => {
  const wallet = createTestWallet();
  for (let i = 0; i < 10; i++) accepted(await postWeb3(server, await signedGrant(wallet, { url: server.url, issuedAt: new Date(Date.now() + i) })));
  overLimit(await postWeb3(server, await signedGrant(wallet, { url: server.url, issuedAt: new Date(Date.now() + 11) })));
  accepted(await attempt(server, { url: server.url }));
});

limited('one address signs in RATE_LIMIT_WEB3 times in 5 minutes, then 429 before the body is read', async ({ server }) => {
  // The previous test used 12 of this address's sign-ins.
  for (let i = 12; i < IP_LIMIT; i++) accepted(await attempt(server, { url: server.url }));
  overLimit(await attempt(server, { url: server.url }));
  overLimit(await postWeb3(server, 'not json'));
  // supabase-js reports it as a rate-limit error.
  const refused = await signInPlayer(server).then(() => null, (error: { status?: number; code?: string }) => error);
  assert.is(refused?.status, 429);
  assert.is(refused?.code, 'over_request_rate_limit');
});

limited.run();
