/**
 * A bounded, seeded fuzz of the server's input: 300 REST requests and 200 WebSocket frames made
 * from a fixed seed. Every REST answer is a 2xx or a clear 4xx `{code, message}`; every frame
 * gets an answer or is ignored without harm; afterwards the server still serves normal reads,
 * another wallet's writes and live changes.
 */
import { SignJWT } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { readJwtSecret } from '../../support/server.js';
import { enterAtSpawn } from '../../support/rules.js';
import { sleep, waitFor } from '../../support/wait.js';
import { seededRng, type Rng } from '../../support/rng.js';
import { subscribeChannel } from '../../support/live.js';

const SEED = 0x7e55e7a;
const REST_REQUESTS = 300;
const WS_FRAMES = 200;


let server: TestServer;
let fuzzer: TestPlayer;
let bystander: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  [fuzzer, bystander] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
});

test.after(async () => {
  await server.stop();
});

const TABLES = ['game_blocks', 'game_chat_messages', 'game_players', 'game_combat_logs', 'game_player_stats', 'game_voice_messages'];
const BAD_TABLES = ['nope', '', 'game_blocks/extra', '%00', '%ZZ', 'pg_catalog.pg_class', '..%2Fauth', 'game_blocks%22;drop'];
const COLUMNS = ['x', 'y', 'block_type', 'player_id', 'player_name', 'message', 'created_at', 'health', 'appearance', 'damage',
  'audio_data', 'id', 'colour', '"x"', 'x;drop', '', '*'];
const OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'is', 'like', 'ilike', 'not.eq', 'fts', 'zz', ''];
const STRINGS = ['', 'x', '(', ')', '"', ',', '%', '%ZZ', "'; drop table game_blocks; --", 'null', 'true', '1e309', '-0',
  '\u0000', '💥', 'ä'.repeat(300), '(1,2', '("a",b)', '2025-13-45', 'NaN'];

function randomValue(r: Rng, depth = 0): unknown {
  switch (r.int(depth > 3 ? 6 : 9)) {
    case 0: return r.pick(STRINGS);
    case 1: return r.int(2_000_000) - 1_000_000;
    case 2: return r.pick([1e308, -1e308, 2 ** 53, 0.5, -0]);
    case 3: return null;
    case 4: return r.next() < 0.5;
    case 5: return 'A'.repeat(r.int(4) * 1000);
    case 6: return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1));
    case 7: return Object.fromEntries(Array.from({ length: r.int(4) }, () => [r.pick(COLUMNS), randomValue(r, depth + 1)]));
    default: return r.pick(['#FFFFFF', 'stone', 'sword', 25, 100]);
  }
}

function randomRow(r: Rng): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: 1 + r.int(6) }, () => [r.pick(COLUMNS), randomValue(r)]));
}

function randomBody(r: Rng): string | undefined {
  switch (r.int(8)) {
    case 0: return r.pick(['{', '[1,', '{"x":}', 'nul', '', '[]', '{}', '"text"', '42', 'null', '{"a":1}{"b":2}', '\u0000']);
    case 1: return JSON.stringify(Array.from({ length: r.int(5) }, () => randomRow(r)));
    case 2: return '['.repeat(2000) + ']'.repeat(2000);
    case 3: return undefined;
    default: return JSON.stringify(randomRow(r));
  }
}

function randomQuery(r: Rng): string {
  const parts: string[] = [];
  for (let i = r.int(4); i > 0; i--) {
    switch (r.int(7)) {
      case 0: parts.push(`select=${encodeURIComponent(Array.from({ length: 1 + r.int(3) }, () => r.pick(COLUMNS)).join(','))}`); break;
      case 1: parts.push(`order=${encodeURIComponent(`${r.pick(COLUMNS)}.${r.pick(['asc', 'desc', 'up', 'nullsfirst'])}`)}`); break;
      case 2: parts.push(`limit=${r.pick(['-1', '0', 'abc', '1e9', '10', '99999999999999999999'])}`); break;
      case 3: parts.push(`offset=${r.pick(['-5', 'x', '3'])}`); break;
      case 4: parts.push(`on_conflict=${encodeURIComponent(r.pick(COLUMNS))}`); break;
      case 5: parts.push(`columns=${encodeURIComponent(r.pick(['"x","y"', '"nope"', 'x', '"']))}`); break;
      default: {
        const value = r.pick(STRINGS);
        const raw = r.next() < 0.2 ? value : encodeURIComponent(value);
        parts.push(`${encodeURIComponent(r.pick(COLUMNS))}=${r.pick(OPS)}.${raw}`);
      }
    }
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

async function randomRequest(r: Rng, tokens: string[]) {
  const method = r.pick(['GET', 'GET', 'HEAD', 'POST', 'POST', 'PATCH', 'DELETE', 'PUT']);
  const headers: Record<string, string> = { apikey: server.anonKey };
  const token = r.next() < 0.7 ? r.pick(tokens) : r.pick([server.anonKey, 'forged.jwt.value', `${tokens[0]!.slice(0, -4)}AAAA`, '']);
  if (token) headers.authorization = `Bearer ${token}`;
  else if (r.next() < 0.5) delete headers.apikey;
  if (r.next() < 0.3) headers.prefer = r.pick(['return=representation', 'resolution=merge-duplicates', 'count=exact', 'resolution=ignore-duplicates, return=representation', 'bogus', 'count=planned']);
  if (r.next() < 0.1) headers.accept = r.pick(['application/vnd.pgrst.object+json', 'text/csv', '*/*']);
  if (r.next() < 0.1) headers['accept-profile'] = r.pick(['public', 'auth', 'game_private']);
  const body = method === 'POST' || method === 'PATCH' || method === 'PUT' ? randomBody(r) : undefined;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const path = `/rest/v1/${r.next() < 0.8 ? r.pick(TABLES) : r.pick(BAD_TABLES)}${randomQuery(r)}`;
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await res.text();
  return { label: `${method} ${path} ${body?.slice(0, 80) ?? ''}`, status: res.status, text, method };
}

test(`${REST_REQUESTS} seeded REST requests: only 2xx or clear 4xx answers`, async () => {
  const r = seededRng(SEED);
  const token = (await fuzzer.client.auth.getSession()).data.session!.access_token;
  const statuses = new Map<number, number>();
  for (let sent = 0; sent < REST_REQUESTS; sent += 6) {
    const batch = await Promise.all(Array.from({ length: Math.min(6, REST_REQUESTS - sent) }, () => randomRequest(r, [token])));
    for (const { label, status, text, method } of batch) {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      assert.ok(status < 500, `${label} -> ${status} ${text.slice(0, 200)}`);
      if (status >= 400 && method !== 'HEAD') {
        const error = JSON.parse(text) as { code?: unknown; message?: unknown };
        assert.type(error.code, 'string', `${label} -> ${text}`);
        assert.type(error.message, 'string', `${label} -> ${text}`);
      }
    }
  }
  assert.ok((statuses.get(200) ?? 0) > 0 && [...statuses.keys()].some((s) => s >= 400), JSON.stringify([...statuses]));
});

test('each kind of bad request gets its clear error, and another wallet is unaffected', async () => {
  const token = (await fuzzer.client.auth.getSession()).data.session!.access_token;
  const secret = Buffer.from(await readJwtSecret(server), 'base64url');
  const now = Math.floor(Date.now() / 1000);
  const expired = await new SignJWT({ role: 'authenticated', sub: 'x', iat: now - 7200, exp: now - 3600 })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new Uint8Array(secret));
  const send = (path: string, init: RequestInit & { bearer?: string } = {}) =>
    fetch(`${server.url}/rest/v1/${path}`, {
      ...init,
      headers: { apikey: server.anonKey, authorization: `Bearer ${init.bearer ?? token}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    });
  /** A body of `bytes` bytes sent in chunks, without Content-Length. */
  const chunked = (bytes: number) => new ReadableStream({
    start(controller) {
      for (let sent = 0; sent < bytes; sent += 64 * 1024) controller.enqueue(new Uint8Array(64 * 1024).fill(65));
      controller.close();
    },
  });
  const cases: [string, () => Promise<Response>, number, string][] = [
    ['malformed JSON', () => send('game_blocks', { method: 'POST', body: '{"x": 1,' }), 400, 'PGRST102'],
    ['unknown table', () => send('game_nothing'), 404, 'PGRST205'],
    ['unknown column', () => send('game_blocks', { method: 'POST', body: '{"colour": "red"}' }), 400, 'PGRST204'],
    ['unknown filter column', () => send('game_blocks?colour=eq.red'), 400, '42703'],
    ['oversized body', () => send('game_voice_messages', { method: 'POST', body: 'A'.repeat(3 * 1024 * 1024) }), 413, 'PGRST413'],
    ['oversized chunked body', () => send('game_voice_messages', { method: 'POST', body: chunked(3 * 1024 * 1024), duplex: 'half' } as RequestInit), 413, 'PGRST413'],
    ['forged JWT', () => send('game_blocks', { bearer: `${token.slice(0, -4)}AAAA` }), 401, 'PGRST301'],
    ['expired JWT', () => send('game_blocks', { bearer: expired }), 401, 'PGRST303'],
    ['unfiltered DELETE', () => send('game_blocks', { method: 'DELETE' }), 400, '21000'],
    ['unfiltered PATCH', () => send('game_blocks', { method: 'PATCH', body: '{"block_type": "gold"}' }), 400, '21000'],
  ];
  for (const [label, request, status, code] of cases) {
    const res = await request().catch((error: Error) => {
      throw new Error(`${label}: ${error.message} ${String(error.cause)}`);
    });
    assert.is(res.status, status, label);
    assert.is(((await res.json()) as { code: string }).code, code, label);
    const other = await bystander.client.from('game_blocks').select('x').limit(1);
    assert.is(other.error, null, `${label}: others still served`);
  }
  await enterAtSpawn(bystander);
  const write = await bystander.client.from('game_blocks').insert({ x: 5, y: 5, block_type: 'glass', player_id: bystander.address, player_name: 'Bystander' });
  assert.is(write.error, null);
});

interface Socket {
  ws: WebSocket;
  replies: unknown[][];
}

async function openSocket(vsn: '1.0.0' | '2.0.0'): Promise<Socket> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=${vsn}`);
  const socket: Socket = { ws, replies: [] };
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const message = JSON.parse(String(data)) as unknown[] | Record<string, unknown>;
    socket.replies.push(Array.isArray(message) ? message : [message.join_ref, message.ref, message.topic, message.event, message.payload]);
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return socket;
}

/** Waits until `socket` has at least `n` replies, or fails after 5 s. */
async function repliesOf(socket: Socket, n: number): Promise<unknown[][]> {
  await waitFor(() => socket.replies.length >= n, { message: () => `${n} replies, got ${JSON.stringify(socket.replies)}` });
  return socket.replies;
}

const joinFrame = (ref: string, topic: string, payload: unknown) => JSON.stringify([ref, ref, topic, 'phx_join', payload]);

test('malformed frames and joins each get a clear error on the same socket', async () => {
  const socket = await openSocket('2.0.0');
  const frames = [
    'not json', '[1,2,3]', '{"topic":"x"}', '[null,"1","",  "phx_join",{}]',
    joinFrame('2', 'realtime:a', 'not an object'),
    joinFrame('3', 'realtime:b', { config: { postgres_changes: 'all' } }),
    joinFrame('4', 'realtime:c', { config: { postgres_changes: [{ event: 'INSERT' }] } }),
    joinFrame('5', 'realtime:d', { config: {}, access_token: 'forged.jwt.token' }),
    JSON.stringify([null, '6', 'realtime:nowhere', 'broadcast', { event: 'x' }]),
    JSON.stringify([null, '7', 'phoenix', 'bogus', {}]),
  ];
  for (const frame of frames) socket.ws.send(frame);
  socket.ws.send(Buffer.from([3, 200, 1, 2, 3, 4, 5, 6]));
  const replies = await repliesOf(socket, frames.length + 1);
  for (const reply of replies) {
    const [, , , event, payload] = reply as [unknown, unknown, string, string, { status?: string }];
    assert.ok(event === 'phx_error' || (event === 'phx_reply' && payload.status === 'error'), JSON.stringify(reply));
  }
  const heartbeat = socket.replies.length;
  socket.ws.send(JSON.stringify([null, 'hb', 'phoenix', 'heartbeat', {}]));
  const after = await repliesOf(socket, heartbeat + 1);
  assert.equal((after[heartbeat]![4] as { status: string }).status, 'ok');
  socket.ws.close();
});

function randomFrame(r: Rng, token: string): string | Buffer {
  const topic = r.pick(['realtime:fuzz', 'realtime:game_blocks', 'phoenix', '', 'realtime:' + 'x'.repeat(5000), 'realtime:💥']);
  const ref = r.pick([null, '1', 2, {}, 'ref']);
  switch (r.int(9)) {
    case 0: return Buffer.from(Array.from({ length: r.int(40) }, () => r.int(256)));
    case 1: return Buffer.from([3, r.int(300) & 255, r.int(256), ...Buffer.from('realtime:fuzzevent{"a":1}')]);
    case 2: return r.pick(['', '[', '[]', 'null', '{}', '[null,null,null,null,null]', '"x"', '1e999', '\ud800']);
    case 3: {
      const entry = { event: r.pick(['INSERT', '*', 'BOGUS', 3]), schema: r.pick(['public', 'pg_catalog', 'auth', 7]),
        table: r.pick(['game_blocks', 'nope', '*', undefined, 5]), filter: r.pick([undefined, 'x=eq.1', 'x=zz.1', 'nope=eq.1', 'garbage', 9]) };
      const config = r.pick([undefined, null, 'x', { postgres_changes: r.pick([[entry], entry, null, [entry, entry]]), broadcast: { self: r.next() < 0.5 } }]);
      return JSON.stringify([ref, ref, topic, 'phx_join', { config, access_token: r.pick([token, 'forged', 42, undefined]) }]);
    }
    case 4: return JSON.stringify([ref, ref, topic, 'access_token', { access_token: r.pick([token, 'forged', null]) }]);
    case 5: return JSON.stringify([ref, ref, topic, 'broadcast', r.pick([{ type: 'broadcast', event: 'pos', payload: randomValue(r) }, { event: 5 }, null])]);
    case 6: return JSON.stringify([ref, ref, topic, r.pick(['phx_leave', 'heartbeat', 'presence', 'x'.repeat(3000)]), randomValue(r)]);
    case 7: return JSON.stringify(Array.from({ length: r.int(8) }, () => randomValue(r)));
    default: return JSON.stringify(randomValue(r));
  }
}

test(`${WS_FRAMES} seeded WebSocket frames: the server stays up and others keep their live changes`, async () => {
  const r = seededRng(SEED + 1);
  const token = (await fuzzer.client.auth.getSession()).data.session!.access_token;
  const events: unknown[] = [];
  await subscribeChannel(
    bystander.client
      .channel('bystander')
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_chat_messages' }, (change) => events.push(change.new)),
  );
  let socket = await openSocket('2.0.0');
  let reopened = 0;
  for (let i = 0; i < WS_FRAMES; i++) {
    if (socket.ws.readyState !== WebSocket.OPEN) {
      reopened++;
      socket = await openSocket(r.next() < 0.5 ? '2.0.0' : '1.0.0');
    }
    socket.ws.send(randomFrame(r, token));
    // Kept: pauses now and then, so that the frames are served while others are still arriving.
    if (i % 20 === 19) await sleep(10);
  }
  const before = socket.replies.length;
  if (socket.ws.readyState === WebSocket.OPEN) {
    socket.ws.send(JSON.stringify([null, 'last', 'phoenix', 'heartbeat', {}]));
    const replies = await repliesOf(socket, before + 1);
    assert.ok(replies.some((reply) => reply[1] === 'last'), 'the heartbeat after the fuzz is answered');
  }
  socket.ws.close();
  assert.ok(reopened <= 5, `the server closed ${reopened} fuzzed sockets`);

  const read = await bystander.client.from('game_blocks').select('x').limit(1);
  assert.is(read.error, null);
  const write = await bystander.client.from('game_chat_messages').insert({ player_id: bystander.address, player_name: 'Bystander', message: 'still fine' });
  assert.is(write.error, null);
  await waitFor(() => events.length > 0, { message: 'the chat message at the bystander' });
  assert.equal((events[0] as { message: string }).message, 'still fine');
  await bystander.client.removeAllChannels();
  assert.not.match(server.output(), /realtime: .*(failed|internal)/, 'no frame made the server fail internally');
});

test.run();
