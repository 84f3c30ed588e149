/**
 * The Realtime broadcast REST API: supabase-js's `send()` before subscribing (the batch endpoint)
 * and `httpSend()` (the single endpoint) reach subscribed clients as socket broadcasts do, under
 * the same rules (private topics by the write policies, region topics private only and stamped
 * with the sender's wallet, payload and sender budgets). Raw requests only for what supabase-js
 * cannot send or does not show (missing keys, exact bodies). Each refusal sits beside its control.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SupabaseClient } from '@supabase/supabase-js';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { enterAtSpawn } from '../../support/rules.js';
import type pg from 'pg';
import { connectAsOperator } from '../../support/server.js';
import { sleep, waitFor } from '../../support/wait.js';
import { accessToken, awaitDatabaseMarker, joinChannel, joinRegion, subscribeChannel } from '../../support/live.js';

let server: TestServer;
let alice: TestPlayer;
let bob: TestPlayer;
let carol: TestPlayer;
let listenerClient: SupabaseClient;
let senderClient: SupabaseClient;
/** Sends the markers that stand before each "nothing else arrived": a broadcast answered 202 was handed on before it. */
let operator: pg.Client;
let topicCount = 0;
const nextTopic = (prefix = 'lobby') => `${prefix}-${++topicCount}`;
let regionCount = 0;
const nextRegion = () => `region:${++regionCount}:7`;

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  [alice, bob, carol] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  await enterAtSpawn(alice, 'Alice');
  await enterAtSpawn(carol, 'Carol');
  listenerClient = createTestClient(server);
  senderClient = createTestClient(server);
});

test.after(async () => {
  for (const client of [listenerClient, senderClient, alice.client, bob.client, carol.client]) await client.removeAllChannels();
  await operator.end();
  await server.stop();
});

/** A raw POST under /realtime/v1 with `headers` (the anon key as apikey unless replaced) and `body`. */
async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const binary = body instanceof Uint8Array;
  const response = await fetch(`${server.url}/realtime/v1${path}`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'Content-Type': binary ? 'application/octet-stream' : 'application/json', ...headers },
    body: binary ? new Uint8Array(body) : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? '' : (JSON.parse(text) as unknown) };
}

test("send() before subscribing and httpSend() reach a subscribed client; both answer 202", async () => {
  const topic = nextTopic();
  const listener = await joinChannel(listenerClient, topic, {});
  assert.is(listener.status, 'SUBSCRIBED');
  const unsubscribed = senderClient.channel(topic);
  assert.is(await unsubscribed.send({ type: 'broadcast', event: 'hello', payload: { via: 'send' } }), 'ok');
  assert.equal(await unsubscribed.httpSend('hello', { via: 'httpSend' }), { success: true });
  await waitFor(() => listener.heard.length === 2, { message: 'both messages' });
  assert.equal(listener.heard, [{ via: 'send' }, { via: 'httpSend' }]);
  assert.equal(await post('/api/broadcast', { messages: [{ topic, event: 'hello', payload: { via: 'raw' } }] }), { status: 202, body: '' });
  assert.equal(await post(`/api/broadcast/${encodeURIComponent(topic)}/events/hello`, { via: 'raw single' }), { status: 202, body: '' });
  await waitFor(() => listener.heard.length === 4, { message: 'the raw messages' });
  assert.equal(listener.heard.slice(2), [{ via: 'raw' }, { via: 'raw single' }]);
  await senderClient.removeChannel(unsubscribed);
  await listenerClient.removeChannel(listener.channel);
});

test('httpSend() with bytes delivers them as a binary broadcast; a private channel of the same name hears nothing public', async () => {
  const topic = nextTopic();
  const bytes: unknown[] = [];
  const listener = listenerClient.channel(topic).on('broadcast', { event: 'raw' }, ({ payload }) => bytes.push(payload));
  await subscribeChannel(listener);
  assert.equal(await senderClient.channel(topic).httpSend('raw', new Uint8Array([1, 2, 3])), { success: true });
  await waitFor(() => bytes.length === 1, { message: 'the bytes' });
  assert.equal([...new Uint8Array(bytes[0] as ArrayBuffer)], [1, 2, 3]);
  await listenerClient.removeChannel(listener);
});

test('the API key is required and the bearer token must verify, with the gateway and Realtime bodies', async () => {
  const topic = nextTopic();
  const message = { messages: [{ topic, event: 'e', payload: {} }] };
  assert.equal(await post('/api/broadcast', message, { apikey: '' }), {
    status: 401,
    body: { message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' },
  });
  assert.equal(await post(`/api/broadcast/${topic}/events/e`, {}, { apikey: '' }), {
    status: 401,
    body: { message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' },
  });
  assert.equal(await post('/api/broadcast', message, { apikey: 'not-a-key' }), {
    status: 401,
    body: { message: 'Invalid API key', hint: 'Double check your Supabase `anon` or `service_role` API key.' },
  });
  assert.equal(await post('/api/broadcast', message, { Authorization: 'Bearer not.a.token' }), { status: 401, body: { message: 'Unauthorized' } });
  assert.equal(await post(`/api/broadcast/${topic}/events/e`, {}, { Authorization: 'Bearer not.a.token' }), { status: 401, body: { message: 'Unauthorized' } });
  // The honest controls: the anon key alone, and a player's token.
  assert.equal(await post('/api/broadcast', message), { status: 202, body: '' });
  assert.equal(await post('/api/broadcast', message, { Authorization: `Bearer ${await accessToken(bob)}` }), { status: 202, body: '' });
});

test('malformed batches are refused in hosted changeset shape; other media types with 415', async () => {
  const topic = nextTopic();
  assert.equal(await post('/api/broadcast', {}), { status: 422, body: { errors: { messages: ["can't be blank"] } } });
  assert.equal(await post('/api/broadcast', { messages: [] }), { status: 422, body: { errors: { messages: ["can't be blank"] } } });
  assert.equal(await post('/api/broadcast', { messages: 'x' }), { status: 422, body: { errors: { messages: ['is invalid'] } } });
  assert.equal(await post('/api/broadcast', { messages: [{ topic, event: 'e', payload: {} }, { event: 'e', payload: [1] }] }), {
    status: 422,
    body: { errors: { messages: [{}, { topic: ["can't be blank"], payload: ['is invalid'] }] } },
  });
  assert.equal(await post('/api/broadcast', '{not json'), { status: 400, body: { message: 'Bad Request' } });
  assert.equal(await post(`/api/broadcast/${topic}/events/e`, 'a=1', { 'Content-Type': 'application/x-www-form-urlencoded' }), {
    status: 415,
    body: { error: 'Unsupported Media Type. Use application/json or application/octet-stream' },
  });
  assert.equal(await post(`/api/broadcast/${topic}/events/e`, { a: 1 }, { 'Content-Type': 'application/json; charset=utf-8' }), { status: 202, body: '' });
});

test('payloads past 64 KiB and bodies past 1 MiB are refused; a payload of exactly 64 KiB passes', async () => {
  const topic = nextTopic();
  const listener = await joinChannel(listenerClient, topic, {});
  // {"b":"…"} is 8 bytes plus the text.
  const fits = { b: 'x'.repeat(64 * 1024 - 8) };
  const tooLarge = { b: 'x'.repeat(64 * 1024 - 7) };
  assert.equal(await post('/api/broadcast', { messages: [{ topic, event: 'big', payload: tooLarge }] }), {
    status: 422,
    body: { errors: { messages: [{ payload: ['Payload size exceeds tenant limit'] }] } },
  });
  assert.equal(await post(`/api/broadcast/${topic}/events/big`, tooLarge), {
    status: 422,
    body: { errors: { payload: ['Payload size exceeds tenant limit'] } },
  });
  assert.equal(await post('/api/broadcast', 'x'.repeat(1024 * 1024 + 1)), { status: 413, body: { message: 'Request Entity Too Large' } });
  assert.equal(await post('/api/broadcast', { messages: [{ topic, event: 'big', payload: fits }] }), { status: 202, body: '' });
  await waitFor(() => listener.heard.length === 1, { message: 'the 64 KiB payload' });
  assert.equal(listener.heard, [fits]);
  await listenerClient.removeChannel(listener.channel);
});

test('private topics need the write policy: the batch drops what it may not send (202), the single endpoint answers 403', async () => {
  const topic = nextRegion();
  const listener = await joinRegion(carol.client, topic);
  const outsider = bob.client.channel(topic, { config: { private: true } });
  assert.is(await outsider.send({ type: 'broadcast', event: 'pose', payload: { x: 'dropped' } }), 'ok');
  assert.equal(await post('/api/broadcast', { messages: [{ topic, event: 'pose', payload: { x: 'dropped' }, private: true }] }), { status: 202, body: '' });
  await outsider.httpSend('pose', { x: 'refused' }).then(
    () => assert.unreachable('a refused httpSend resolves'),
    (error: Error) => assert.is(error.message, 'Unauthorized'),
  );
  assert.equal(await post(`/api/broadcast/${topic}/events/pose?private=true`, { x: 'refused' }, { Authorization: `Bearer ${await accessToken(bob)}` }), {
    status: 403,
    body: { message: 'Unauthorized' },
  });
  // The honest control: a player in the world sends, stamped with its own wallet whatever it wrote.
  const sender = alice.client.channel(topic, { config: { private: true } });
  assert.equal(await sender.httpSend('pose', { id: carol.address, x: 1 }), { success: true });
  assert.is(await sender.send({ type: 'broadcast', event: 'pose', payload: { x: 2 } }), 'ok');
  await waitFor(() => listener.heard.length === 2, { message: 'the honest poses' });
  await awaitDatabaseMarker(carol.client, operator);
  assert.equal(listener.heard, [{ id: alice.address, x: 1 }, { x: 2, id: alice.address }]);
  await alice.client.removeChannel(sender);
  await bob.client.removeChannel(outsider);
  await carol.client.removeChannel(listener.channel);
});

test('region topics are private only over REST too, and carry JSON objects only', async () => {
  const topic = nextRegion();
  const listener = await joinRegion(carol.client, topic);
  const token = { Authorization: `Bearer ${await accessToken(alice)}` };
  assert.equal(await post('/api/broadcast', { messages: [{ topic, event: 'pose', payload: { x: 1 } }] }, token), {
    status: 403,
    body: { message: 'PrivateOnly: This project only allows private channels' },
  });
  assert.equal(await post(`/api/broadcast/${topic}/events/pose`, { x: 1 }, token), {
    status: 403,
    body: { message: 'PrivateOnly: This project only allows private channels' },
  });
  assert.equal(await post(`/api/broadcast/${topic}/events/pose?private=true`, new Uint8Array([1]), token), {
    status: 422,
    body: { message: 'Region broadcasts must carry a JSON object payload' },
  });
  assert.equal(await post(`/api/broadcast/${topic}/events/pose?private=true`, [1, 2], token), {
    status: 422,
    body: { message: 'Region broadcasts must carry a JSON object payload' },
  });
  assert.equal(await post(`/api/broadcast/${topic}/events/pose?private=true`, { x: 3 }, token), { status: 202, body: '' });
  await waitFor(() => listener.heard.length === 1, { message: 'the honest pose' });
  await awaitDatabaseMarker(carol.client, operator);
  assert.equal(listener.heard, [{ x: 3, id: alice.address }]);
  await carol.client.removeChannel(listener.channel);
});

test("a batch holds at most 100 messages; a sender's budget is 100 a second, shared with its sockets", async () => {
  const topic = nextRegion();
  const listener = await joinRegion(carol.client, topic);
  const token = { Authorization: `Bearer ${await accessToken(alice)}` };
  const batch = (count: number) => ({ messages: Array.from({ length: count }, (_, n) => ({ topic, event: `e${n}`, payload: { n }, private: true })) });
  assert.equal(await post('/api/broadcast', batch(101), token), {
    status: 429,
    body: { message: 'Too many messages to broadcast, please reduce the batch size' },
  });
  assert.equal(await post('/api/broadcast', batch(100), token), { status: 202, body: '' });
  // The budget refills at 100 a second: 50 more would need half a second of it, however busy the machine.
  assert.equal(await post('/api/broadcast', batch(50), token), { status: 429, body: { message: 'You have exceeded your rate limit' } });
  await waitFor(() => listener.heard.length === 100, { message: 'the 100 messages' });
  await awaitDatabaseMarker(carol.client, operator);
  assert.is(listener.heard.length, 100, 'nothing past the budget');
  // The budget refills: a second later the wallet may send again.
  await sleep(1100); // kept: the refill is what is tested
  assert.equal(await post('/api/broadcast', batch(1), token), { status: 202, body: '' });
  await carol.client.removeChannel(listener.channel);
});

test('one address makes at most 50 requests a second, refused before its token is read', async () => {
  await sleep(1100); // kept: the address starts with a full second's budget
  const batch = { messages: [{ topic: nextTopic(), event: 'e', payload: { n: 1 } }] };
  // A burst of 100 with a bad token: those within the budget reach the token check (401), the
  // rest are refused before it (429). The budget refills while the burst is served, so a few
  // more than 50 may pass.
  const answers = await Promise.all(Array.from({ length: 100 }, () => post('/api/broadcast', batch, { Authorization: 'Bearer not-a-token' })));
  const unauthorized = answers.filter((answer) => answer.status === 401).length;
  const limited = answers.filter((answer) => answer.status === 429);
  assert.is(unauthorized + limited.length, 100);
  assert.ok(unauthorized >= 50 && limited.length > 0, `${unauthorized} reached the token check`);
  assert.equal(limited[0]!.body, { message: 'You have exceeded your rate limit' });
  await sleep(1100); // kept: the refill is what is tested
  assert.equal(await post('/api/broadcast', batch), { status: 202, body: '' });
});

test('other paths and methods under /realtime/v1 stay JSON 404s', async () => {
  for (const [method, path] of [
    ['GET', '/api/broadcast'],
    ['POST', '/api/broadcast/x/events'],
    ['POST', '/api/broadcasts'],
    ['PUT', '/api/broadcast/x/events/y'],
  ] as const) {
    const response = await fetch(`${server.url}/realtime/v1${path}`, { method, headers: { apikey: server.anonKey } });
    assert.is(response.status, 404, `${method} ${path}`);
    assert.equal(await response.json(), { message: 'Not Found' }, `${method} ${path}`);
  }
});

test.run();
