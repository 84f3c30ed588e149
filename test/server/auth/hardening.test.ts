/**
 * Bounds on what one client can make the server keep or do: refresh floods answer one child
 * token, every Auth request counts against a per-address limit, each address holds a bounded
 * number of Realtime sockets, old refresh tokens, idle sessions and old voice clips are removed.
 * Two addresses are 127.0.0.1 and ::1 (the server listens on both).
 */
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { cleanUpSessions, CLEANUP_BATCH_ROWS } from '../../../server/auth/cleanup.js';
import type { Queryable } from '../../../server/db/index.js';
import { TOO_MANY_SOCKETS } from '../../../server/realtime/index.js';
import { connectAsOperator } from '../../support/server.js';
import { sleep, waitFor } from '../../support/wait.js';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { enterAtSpawn, nameOf } from '../../support/rules.js';
import { rawRequest, type RawResponse } from '../../support/web3-grant.js';
import { subscribeChannel } from '../../support/live.js';

const OVER_LIMIT = { code: 'over_request_rate_limit', message: 'Request rate limit reached' };

/** The test defaults: per-address limits far away, so only the per-session limit applies. */
let server: TestServer;
/** GoTrue's default `/token` limit (150 per 5 min, bursts of 30), 150 other requests, 3 sockets per address. */
let limited: TestServer;
let operator: pg.Client;

test.before(async () => {
  [server, limited] = await Promise.all([
    startTestServer(),
    startTestServer(undefined, { RATE_LIMIT_TOKEN_REFRESH: '150', RATE_LIMIT_AUTH_REQUESTS: '150', REALTIME_MAX_SOCKETS_PER_IP: '3' }),
  ]);
  operator = await connectAsOperator(server);
});

test.after(async () => {
  await operator.end();
  await Promise.all([server.stop(), limited.stop()]);
});

/** `server` reached over IPv4 or IPv6 loopback: two client addresses. */
function at(target: TestServer, family: 4 | 6): { url: string } {
  const port = new URL(target.url).port;
  return { url: family === 4 ? `http://127.0.0.1:${port}` : `http://[::1]:${port}` };
}

function refreshWith(target: TestServer, refreshToken: string, family: 4 | 6 = 4): Promise<RawResponse> {
  const headers = { apikey: target.anonKey, 'content-type': 'application/json' };
  return rawRequest(at(target, family), 'POST', '/auth/v1/token?grant_type=refresh_token', headers, JSON.stringify({ refresh_token: refreshToken }));
}

async function sessionOf(player: TestPlayer): Promise<{ refreshToken: string; sessionId: string }> {
  const session = (await player.client.auth.getSession()).data.session!;
  const claims = JSON.parse(Buffer.from(session.access_token.split('.')[1]!, 'base64url').toString()) as { session_id: string };
  return { refreshToken: session.refresh_token, sessionId: claims.session_id };
}

async function tokensOf(sessionId: string): Promise<Array<{ token: string; revoked: boolean }>> {
  const { rows } = await operator.query<{ token: string; revoked: boolean }>(
    'select token, revoked_at is not null as revoked from auth.refresh_tokens where session_id = $1 order by created_at',
    [sessionId],
  );
  return rows;
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

test('a rotated token reused within 10 s gets the active child, never a new token', async () => {
  const player = await signInPlayer(server);
  const { refreshToken, sessionId } = await sessionOf(player);
  const first = await refreshWith(server, refreshToken);
  assert.is(first.status, 200);
  const child = String(first.body!.refresh_token);
  const again = await refreshWith(server, refreshToken);
  assert.is(again.status, 200);
  assert.is(again.body!.refresh_token, child);
  assert.equal(await tokensOf(sessionId), [{ token: refreshToken, revoked: true }, { token: child, revoked: false }]);
  const next = await refreshWith(server, child);
  assert.is(next.status, 200);
  assert.is.not(next.body!.refresh_token, child, 'the active token itself rotates');
  const huge = await refreshWith(server, 'x'.repeat(60_000));
  assert.equal([huge.status, huge.body!.code], [400, 'refresh_token_not_found']);
});

test('300 parallel refreshes of one token: 10 answered with one child, 290 refused, the session keeps 2 tokens', async () => {
  const player = await signInPlayer(server);
  const { refreshToken, sessionId } = await sessionOf(player);
  const answers = await Promise.all(Array.from({ length: 300 }, () => refreshWith(server, refreshToken)));
  assert.equal(countBy(answers, (a) => String(a.status)), { 200: 10, 429: 290 });
  const children = new Set(answers.filter((a) => a.status === 200).map((a) => a.body!.refresh_token));
  assert.is(children.size, 1);
  const refused = answers.find((a) => a.status === 429)!;
  assert.equal(refused.body, OVER_LIMIT);
  assert.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 300);
  const tokens = await tokensOf(sessionId);
  assert.equal(tokens, [{ token: refreshToken, revoked: true }, { token: [...children][0], revoked: false }]);

  // The flooded session waits; another player's honest refresh through supabase-js works.
  const other = await signInPlayer(server);
  const { data, error } = await other.client.auth.refreshSession();
  assert.is(error, null);
  assert.type(data.session?.refresh_token, 'string');
});

test('a rotated token reused after 10 s ends the session and deletes its tokens', async () => {
  const player = await signInPlayer(server);
  const { refreshToken, sessionId } = await sessionOf(player);
  const child = await refreshWith(server, refreshToken);
  assert.is(child.status, 200);
  await operator.query(`update auth.refresh_tokens set revoked_at = now() - interval '11 seconds' where token = $1`, [refreshToken]);
  const reused = await refreshWith(server, refreshToken);
  assert.is(reused.status, 400);
  assert.equal(reused.body, { code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' });
  assert.equal(await tokensOf(sessionId), []);
  assert.is((await refreshWith(server, String(child.body!.refresh_token))).body!.code, 'refresh_token_not_found');
});

test('/token: a burst of 30 per address, then 429 as GoTrue answers it; another address is unaffected', async () => {
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => refreshWith(limited, `no-such-token-${i}`)));
  assert.equal(countBy(answers, (a) => String(a.status)), { 400: 30, 429: 10 });
  const refused = answers.find((a) => a.status === 429)!;
  assert.equal(refused.body, OVER_LIMIT);
  assert.is(refused.headers['retry-after'], '2', 'one more request every 2 s: 150 per 5 minutes');
  assert.is(answers.find((a) => a.status === 400)!.body!.code, 'refresh_token_not_found');

  // supabase-js reads the refusal as GoTrue's.
  const client = createTestClient({ url: at(limited, 4).url, anonKey: limited.anonKey });
  const { error } = await client.auth.refreshSession({ refresh_token: 'no-such-token' });
  assert.is(error?.status, 429);
  assert.is((error as { code?: string } | null)?.code, 'over_request_rate_limit');

  // The IPv6 loopback is another address with its own allowance: an honest sign-in and refresh work.
  const player = await signInPlayer({ url: at(limited, 6).url, anonKey: limited.anonKey });
  const { refreshToken } = await sessionOf(player);
  assert.is((await refreshWith(limited, refreshToken, 6)).status, 200);
});

test('other Auth requests: a burst of 150 per address, then 429', async () => {
  const headers = { apikey: limited.anonKey, 'content-type': 'application/json' };
  const answers = await Promise.all(Array.from({ length: 160 }, () => rawRequest(at(limited, 4), 'POST', '/auth/v1/signup', headers, '{}')));
  assert.equal(countBy(answers, (a) => String(a.status)), { 422: 150, 429: 10 });
  assert.equal(answers.find((a) => a.status === 429)!.body, OVER_LIMIT);
  const user = await rawRequest(at(limited, 4), 'GET', '/auth/v1/user', { apikey: limited.anonKey, authorization: `Bearer ${limited.anonKey}` });
  assert.is(user.status, 429);
  const elsewhere = await rawRequest(at(limited, 6), 'POST', '/auth/v1/signup', headers, '{}');
  assert.is(elsewhere.status, 422);
});

/** Opens a Realtime socket from one loopback address; resolves with it, or with the refusal's status and body. */
function openSocket(target: TestServer, family: 4 | 6, apikey = target.anonKey): Promise<WebSocket | { status: number; body: string }> {
  const url = `${at(target, family).url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${apikey}&vsn=2.0.0`;
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    ws.once('error', reject);
  });
}

async function closed(ws: WebSocket): Promise<void> {
  await new Promise((resolve) => {
    ws.once('close', resolve);
    ws.close();
  });
}

/**
 * Opens `count` sockets from 127.0.0.1, retrying a refused one for up to a second: the server
 * counts a socket out when its side has closed, just after the client's.
 */
async function openSockets(target: TestServer, count: number): Promise<WebSocket[]> {
  const open: WebSocket[] = [];
  for (let attempt = 0; attempt < 50 && open.length < count; attempt++) {
    const ws = await openSocket(target, 4);
    if (ws instanceof WebSocket) open.push(ws);
    else await sleep(20); // kept: a retry's pause, bounded by the attempts
  }
  return open;
}

test('Realtime sockets: over the per-address cap the upgrade is a 429; closing sockets frees their places', async () => {
  const open = await openSockets(limited, 3);
  assert.is(open.length, 3);
  assert.equal(await openSocket(limited, 4), { status: 429, body: JSON.stringify({ error: TOO_MANY_SOCKETS }) });
  const elsewhere = await openSocket(limited, 6);
  assert.instance(elsewhere, WebSocket, 'another address has its own sockets');

  await closed(open.pop()!);
  open.push(...(await openSockets(limited, 1)));
  assert.is(open.length, 3);
  assert.equal(await openSocket(limited, 4), { status: 429, body: JSON.stringify({ error: TOO_MANY_SOCKETS }) });

  // Sockets refused for a bad key leave no place taken either.
  await Promise.all(open.map(closed));
  for (let i = 0; i < 10; i++) assert.is(((await openSocket(limited, 4, 'not-a-key')) as { status: number }).status, 401);
  const again = await openSockets(limited, 3);
  assert.is(again.length, 3);
  await Promise.all([...again, elsewhere as WebSocket].map(closed));
});

/** The operator connection as the clean-up's database. */
function operatorDb(): Queryable {
  return {
    query: async (sql, params) => operator.query(sql, params) as never,
    exec: async (sql) => void (await operator.query(sql)),
  };
}

test('clean-up: rotated tokens go after 24 h, sessions idle 30 days go whole; the rest stays', async () => {
  const kept = await sessionOf(await signInPlayer(server));
  const rotated = await refreshWith(server, kept.refreshToken);
  const child = String(rotated.body!.refresh_token);
  const idle = await sessionOf(await signInPlayer(server));
  const fresh = await sessionOf(await signInPlayer(server));
  const freshChild = String((await refreshWith(server, fresh.refreshToken)).body!.refresh_token);
  await operator.query(`update auth.refresh_tokens set revoked_at = now() - interval '25 hours' where token = $1`, [kept.refreshToken]);
  await operator.query(`update auth.refresh_tokens set revoked_at = now() - interval '23 hours' where token = $1`, [fresh.refreshToken]);
  await operator.query(`update auth.refresh_tokens set created_at = now() - interval '31 days' where token = $1`, [idle.refreshToken]);

  assert.equal(await cleanUpSessions(operatorDb()), { tokens: 1, sessions: 1 });
  assert.equal(await tokensOf(kept.sessionId), [{ token: child, revoked: false }]);
  assert.equal(await tokensOf(fresh.sessionId), [{ token: fresh.refreshToken, revoked: true }, { token: freshChild, revoked: false }]);
  assert.equal(await tokensOf(idle.sessionId), []);
  assert.is((await operator.query('select 1 from auth.sessions where id = $1', [idle.sessionId])).rows.length, 0);
  assert.is((await refreshWith(server, idle.refreshToken)).body!.code, 'refresh_token_not_found');
  assert.is((await refreshWith(server, child)).status, 200);
});

test(`clean-up: a backlog goes in batches of ${CLEANUP_BATCH_ROWS}`, async () => {
  const { sessionId } = await sessionOf(await signInPlayer(server));
  const { rows } = await operator.query<{ user_id: string }>('select user_id from auth.sessions where id = $1', [sessionId]);
  await operator.query(
    `insert into auth.refresh_tokens (token, user_id, session_id, revoked_at)
     select 'old-' || n, $1, $2, now() - interval '2 days' from generate_series(1, $3::int) n`,
    [rows[0]!.user_id, sessionId, CLEANUP_BATCH_ROWS * 2 + 5],
  );
  assert.equal(await cleanUpSessions(operatorDb()), { tokens: CLEANUP_BATCH_ROWS * 2 + 5, sessions: 0 });
  assert.is((await tokensOf(sessionId)).length, 1);
});

async function clipNames(): Promise<string[]> {
  const { rows } = await operator.query<{ name: string }>(`select player_name as name from public.game_voice_messages order by created_at, player_name`);
  return rows.map((row) => row.name);
}

/** Stores clips as the operator with a given age (the stamping triggers set `now()` otherwise). */
async function storeClips(names: string[], age: string): Promise<void> {
  await operator.query('set session_replication_role = replica');
  try {
    await operator.query(
      `insert into public.game_voice_messages (player_id, player_name, audio_data, x, y, created_at)
       select 'operator', name, 'AAAA', 0, 0, now() - $2::interval + make_interval(secs => ord / 1000.0)
       from unnest($1::text[]) with ordinality as t(name, ord)`,
      [names, age],
    );
  } finally {
    await operator.query('set session_replication_role = origin');
  }
}

test('voice clips older than 2 minutes are deleted as new ones come, 10 per insert, oldest first; new ones are still heard', async () => {
  await operator.query('delete from public.game_voice_messages');
  const [speaker, listener] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await enterAtSpawn(speaker);
  const heard: string[] = [];
  const channel = listener.client
    .channel('voice')
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_voice_messages' }, (change) => heard.push(String(change.new.player_name)));
  await subscribeChannel(channel);
  const speak = () => speaker.client.from('game_voice_messages').insert({ player_id: speaker.address, player_name: nameOf(speaker), audio_data: 'AAAA', x: 0, y: 0 });
  await storeClips(['Old'], '3 minutes');
  await storeClips(['Recent'], '100 seconds');
  assert.is((await speak()).error, null);
  assert.equal(await clipNames(), ['Recent', nameOf(speaker)]);

  const backlog = Array.from({ length: 25 }, (_, i) => `Old${String(i).padStart(2, '0')}`);
  await storeClips(backlog, '10 minutes');
  assert.is((await speak()).error, null);
  assert.equal(await clipNames(), [...backlog.slice(10), 'Recent', nameOf(speaker), nameOf(speaker)]);
  await waitFor(() => heard.length >= 2, { message: 'both clips heard' });
  assert.equal(heard, [nameOf(speaker), nameOf(speaker)], 'the operator rows were stored without triggers, so without events');
  await listener.client.removeChannel(channel);
});

test.run();
