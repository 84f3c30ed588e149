/**
 * Requests REST cannot serve, answered as PostgREST answers them: an unfiltered delete, an
 * unknown table or column, a body over the size bound.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { playerAtSpawn } from '../../support/rules.js';

let server: TestServer;
let alice: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  alice = await playerAtSpawn(server, 'Alice');
});

test.after(async () => {
  await server.stop();
});

test('an unfiltered delete is refused (400 21000)', async () => {
  const { error, status } = await alice.client.from('game_blocks').delete().gte('x', -100000).select();
  assert.is(error, null);
  assert.is(status, 200);
  const res = await fetch(`${server.url}/rest/v1/game_blocks`, {
    method: 'DELETE',
    headers: { apikey: server.anonKey, authorization: `Bearer ${(await alice.client.auth.getSession()).data.session!.access_token}` },
  });
  assert.is(res.status, 400);
  assert.is(((await res.json()) as { code: string }).code, '21000');
});

test('request errors: unknown table 404, unknown column 400, oversized body 413', async () => {
  const table = await alice.client.from('nope').select('*');
  assert.is(table.status, 404);
  assert.is(table.error!.code, 'PGRST205');
  const column = await alice.client.from('game_blocks').insert({ x: 7, y: 7, block_type: 'stone', player_id: alice.address, player_name: 'Player', colour: 'red' });
  assert.is(column.error!.code, 'PGRST204');
  const filter = await alice.client.from('game_blocks').select('*').eq('colour', 'red');
  assert.is(filter.error!.code, '42703');
  const huge = await alice.client.from('game_voice_messages').insert({
    player_id: alice.address, player_name: 'Alice', audio_data: 'A'.repeat(3 * 1024 * 1024), x: 0, y: 0,
  });
  assert.is(huge.status, 413);
});

test.run();
