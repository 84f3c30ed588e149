/**
 * A session that ends on one node ends on every node: after a sign-out or a play ban, the other
 * node refuses the session's token and closes its channels there, as a single node does.
 */
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestWallet, signInPlayer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { startCluster, type TestCluster } from '../../support/cluster.js';
import { accessToken, rawSocket, replyTo, responseOf, type RawSocket } from '../../support/live.js';
import { rawRequest, type RawResponse } from '../../support/web3-grant.js';

let cluster: TestCluster;
const operatorWallet = createTestWallet();

test.before(async () => {
  cluster = await startCluster(2, { OPERATOR_WALLETS: operatorWallet.address });
});

test.after(async () => {
  await cluster?.close();
});

const SESSION_ENDED = { code: 'session_not_found', message: 'Session from session_id claim in JWT does not exist' };

function userWith(server: TestServer, token: string): Promise<RawResponse> {
  return rawRequest(server, 'GET', '/auth/v1/user', { apikey: server.anonKey, authorization: `Bearer ${token}` });
}

function chatWith(server: TestServer, token: string, player: TestPlayer): Promise<RawResponse> {
  const body = JSON.stringify({ player_id: player.address, player_name: 'Eve', message: 'still here?' });
  const headers = { apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return rawRequest(server, 'POST', '/rest/v1/game_chat_messages', headers, body);
}

/** Asserts the answers of `server` to a token of an ended session: GoTrue's 403 and PostgREST's 401. */
async function assertEnded(server: TestServer, token: string, player: TestPlayer): Promise<void> {
  const user = await userWith(server, token);
  assert.equal({ status: user.status, body: user.body }, { status: 403, body: SESSION_ENDED });
  const rest = await chatWith(server, token, player);
  assert.equal({ status: rest.status, code: rest.body!.code, message: rest.body!.message }, { status: 401, code: 'PGRST301', message: SESSION_ENDED.message });
}

/** The session id a token names. */
function sessionOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { session_id: string }).session_id;
}

/** A raw socket on `server` with a channel joined on `topic` under `token`. */
async function joinedWith(server: TestServer, token: string, topic: string): Promise<RawSocket> {
  const socket = await rawSocket(server);
  socket.send(['j', 'j', `realtime:${topic}`, 'phx_join', { config: { broadcast: {}, presence: { key: '' }, postgres_changes: [], private: false }, access_token: token }]);
  assert.is(responseOf(await socket.take(replyTo('j'))).status, 'ok');
  return socket;
}

/** Waits for the frames a channel gets when its session ends: the system message, then phx_close. */
async function assertClosedAsEnded(socket: RawSocket, topic: string): Promise<void> {
  const system = (await socket.take((f) => Array.isArray(f) && f[3] === 'system')) as unknown[];
  assert.equal(system.slice(2), [`realtime:${topic}`, 'system', { extension: 'system', status: 'error', message: 'Token has been revoked', channel: topic }]);
  const close = (await socket.take((f) => Array.isArray(f) && f[3] === 'phx_close')) as unknown[];
  assert.equal(close, ['j', 'j', `realtime:${topic}`, 'phx_close', {}]);
}

test('a sign-out on node-1 closes the session\'s channel on node-2 and node-2 refuses its token; another session on node-2 goes on', async () => {
  const [first, second] = cluster.nodes as [TestServer, TestServer];
  const player = await signInPlayer(first);
  const bystander = await signInPlayer(second);
  const [token, bystanderToken] = [await accessToken(player), await accessToken(bystander)];
  assert.is((await userWith(second, token)).status, 200);
  const socket = await joinedWith(second, token, 'leaving');
  const other = await joinedWith(second, bystanderToken, 'leaving');

  assert.is((await player.client.auth.signOut()).error, null);
  await assertClosedAsEnded(socket, 'leaving');
  await assertEnded(second, token, player);
  await assertEnded(first, token, player);

  assert.is((await userWith(second, bystanderToken)).status, 200);
  assert.is((await chatWith(second, bystanderToken, bystander)).status, 201);
  assert.equal(other.frames.filter((f) => Array.isArray(f) && (f[3] === 'system' || f[3] === 'phx_close')), []);
  socket.ws.close();
  other.ws.close();
});

test('a play ban ends the wallet\'s sessions on both nodes and closes their channels on each; the operator\'s session goes on', async () => {
  const [first, second] = cluster.nodes as [TestServer, TestServer];
  const operator = await signInPlayer(first, operatorWallet);
  const onFirst = await signInPlayer(first);
  const onSecond = await signInPlayer(second, onFirst.wallet);
  const [firstToken, secondToken] = [await accessToken(onFirst), await accessToken(onSecond)];
  const [firstSocket, secondSocket] = [await joinedWith(first, firstToken, 'banned'), await joinedWith(second, secondToken, 'banned')];

  const ban = await operator.client.from('game_bans').insert({ player_id: onFirst.address, scope: 'play', reason: 'griefing the spawn' });
  assert.is(ban.error, null);
  await assertClosedAsEnded(firstSocket, 'banned');
  await assertClosedAsEnded(secondSocket, 'banned');
  for (const node of [first, second]) for (const token of [firstToken, secondToken]) await assertEnded(node, token, onFirst);

  const db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  try {
    const sessions = [firstToken, secondToken].map(sessionOf).sort();
    const { rows } = await db.query(`select session_id::text from auth.revoked_sessions where session_id = any($1::uuid[]) order by 1`, [sessions]);
    assert.equal(rows.map((row) => row.session_id), sessions);
    const left = await db.query('select count(*)::int as n from auth.sessions where id = any($1::uuid[])', [sessions]);
    assert.is(left.rows[0].n, 0);
  } finally {
    await db.end();
  }
  // The operator's own session, on node-1, is untouched.
  assert.is((await userWith(second, await accessToken(operator))).status, 200);
  firstSocket.ws.close();
  secondSocket.ws.close();
});

test.run();
