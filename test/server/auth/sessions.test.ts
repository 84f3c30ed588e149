/**
 * Sessions end: after sign-out, or after a rotated refresh token is reused outside the 10 s
 * window, the session's access tokens are refused by REST, Realtime and /auth/v1/user, also
 * after a restart. Each refusal stands beside the same call made while the session lived.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { createTestClient, makeDataDir, removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { accessToken } from '../../support/live.js';
import { rawRequest, type RawResponse } from '../../support/web3-grant.js';
import { sleep } from '../../support/wait.js';

let server: TestServer;
/** The suite's DATA_DIR, kept across the restart. */
let dataDir: string;

test.before(async () => {
  dataDir = await makeDataDir();
  server = await startTestServer(dataDir);
});

test.after(async () => {
  await server.stop();
  await removeDataDir(dataDir);
});

function userWith(token: string): Promise<RawResponse> {
  return rawRequest(server, 'GET', '/auth/v1/user', { apikey: server.anonKey, authorization: `Bearer ${token}` });
}

function chatWith(token: string, player: TestPlayer): Promise<RawResponse> {
  const body = JSON.stringify({ player_id: player.address, player_name: 'Eve', message: 'still here?' });
  const headers = { apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return rawRequest(server, 'POST', '/rest/v1/game_chat_messages', headers, body);
}

function refreshWith(refreshToken: string): Promise<RawResponse> {
  const headers = { apikey: server.anonKey, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' };
  return rawRequest(server, 'POST', '/auth/v1/token?grant_type=refresh_token', headers, JSON.stringify({ refresh_token: refreshToken }));
}

const SESSION_ENDED = { code: 'session_not_found', message: 'Session from session_id claim in JWT does not exist' };

function restRefused(res: RawResponse): void {
  assert.is(res.status, 401);
  assert.is(res.body!.code, 'PGRST301');
  assert.is(res.body!.message, SESSION_ENDED.message);
}

/** A channel joined by a client that keeps using `token`, and a promise of when it closed. */
async function joinWith(token: string): Promise<{ client: SupabaseClient; channel: RealtimeChannel; closed: Promise<number> }> {
  const client = createTestClient(server);
  // A token set by hand is kept by realtime-js: this client goes on using it after the sign-out.
  await client.realtime.setAuth(token);
  let closedAt: (at: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => (closedAt = resolve));
  const channel = client.channel(`session-${Math.random()}`).on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_chat_messages' }, () => undefined);
  await new Promise<void>((resolve, reject) =>
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status === 'CLOSED') closedAt(Date.now());
      else reject(error ?? new Error(status));
    }),
  );
  return { client, channel, closed };
}

test('sign-out ends REST, Realtime and /user access of the session within a second', async () => {
  const player = await signInPlayer(server);
  const token = await accessToken(player);
  assert.is((await userWith(token)).status, 200);
  assert.is((await chatWith(token, player)).status, 201);
  const { client, channel, closed } = await joinWith(token);

  const signedOutAt = Date.now();
  assert.is((await player.client.auth.signOut()).error, null);
  const closedAt = await Promise.race([closed, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('channel still open after 1 s')), 1000))]);
  assert.ok(closedAt - signedOutAt < 1000);
  assert.is(channel.state, 'closed');

  const user = await userWith(token);
  assert.is(user.status, 403);
  assert.equal(user.body, SESSION_ENDED);
  restRefused(await chatWith(token, player));
  client.realtime.disconnect();
});

test('sign-out leaves the wallet\'s other sessions alone with scope local', async () => {
  const first = await signInPlayer(server);
  const second = await signInPlayer(server, first.wallet);
  const [firstToken, secondToken] = [await accessToken(first), await accessToken(second)];
  assert.is((await first.client.auth.signOut({ scope: 'local' })).error, null);
  assert.is((await userWith(firstToken)).status, 403);
  assert.is((await userWith(secondToken)).status, 200);
  assert.is((await chatWith(secondToken, second)).status, 201);
});

test('an ended session stays ended after a restart', async () => {
  const player = await signInPlayer(server);
  const token = await accessToken(player);
  await player.client.auth.signOut();
  assert.is(await server.stop(), 0);
  server = await startTestServer(dataDir);
  assert.is((await userWith(token)).status, 403);
  restRefused(await chatWith(token, player));
});

test('a rotated refresh token reused within 10 s still refreshes; reused later it ends the whole session', async () => {
  const player = await signInPlayer(server);
  const first = (await player.client.auth.getSession()).data.session!;
  const second = await refreshWith(first.refresh_token);
  assert.is(second.status, 200);
  const racingTab = await refreshWith(first.refresh_token);
  assert.is(racingTab.status, 200, 'reuse inside the window is a racing tab, not theft');
  const latest = racingTab.body!;
  assert.is((await userWith(String(latest.access_token))).status, 200);

  // The reuse window is a clock rule: it can only be passed by letting 10 s go by.
  await sleep(10_500); // kept: the window is measured
  const reused = await refreshWith(first.refresh_token);
  assert.is(reused.status, 400);
  assert.equal(reused.body, { code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' });

  const successor = await refreshWith(String(latest.refresh_token));
  assert.is(successor.status, 400);
  assert.is(successor.body!.code, 'refresh_token_not_found');
  for (const token of [first.access_token, String(second.body!.access_token), String(latest.access_token)]) {
    assert.is((await userWith(token)).status, 403);
    restRefused(await chatWith(token, player));
  }
});

test.run();
