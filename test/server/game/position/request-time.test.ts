/**
 * A position is judged at the time its request asked for the database: a heartbeat that waited
 * seconds for a pooled connection is recorded as where the player stood when it was sent, so the
 * player's next moves and builds are judged from then (supabase/migrations/20250803000000_positions_at_request_time.sql).
 * The server has one pooled connection here, held by another player's heartbeat that waits on a lock.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { blockRow, createRules } from '../../../support/rules.js';
import { connectAsOperator } from '../../../support/server.js';
import { sleep } from '../../../support/wait.js';

let server: TestServer;
let operator: pg.Client;
let rules: ReturnType<typeof createRules>;

test.before(async () => {
  server = await startTestServer(undefined, { DB_POOL: '1' });
  operator = await connectAsOperator(server);
  rules = createRules(await signInPlayer(server));
});

test.after(async () => {
  await operator.end();
  await server.stop();
  await removeDataDir(server.dataDir);
});

/** Seconds between when a player's last position was recorded as taken and when its presence row was last stamped. */
async function recordedEarly(p: TestPlayer): Promise<number> {
  const { rows } = await operator.query<{ early: number }>(
    `select extract(epoch from p.last_seen - l.at)::float8 as early
     from public.game_players p join game_private.last_positions l on l.player_id = p.player_id where p.player_id = $1`,
    [p.address],
  );
  return rows[0]!.early;
}

test('a heartbeat that waited 3 s for a connection is recorded where the player stood 3 s before, and the player builds at the edge of its view', async () => {
  const { beat } = rules;
  const [walker, holder] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  assert.is((await beat(walker, 0, 0)).error, null);
  assert.is((await beat(holder, 0, 0)).error, null);
  assert.ok((await recordedEarly(walker)) < 0.5, 'a heartbeat that did not wait is recorded at its own time');
  // The holder's next heartbeat takes the one connection and waits on the lock of its name.
  await operator.query(`select pg_advisory_lock(hashtext('tessera.name_holder'), hashtext($1))`, [holder.address]);
  const held = beat(holder, 0, 0);
  await sleep(300); // kept: the holder's heartbeat must take the connection first
  const waited = beat(walker, 0, 0);
  await sleep(3000); // kept: how long the walker's heartbeat waits is what is tested
  await operator.query(`select pg_advisory_unlock(hashtext('tessera.name_holder'), hashtext($1))`, [holder.address]);
  assert.is((await held).error, null);
  assert.is((await waited).error, null);
  const early = await recordedEarly(walker);
  assert.ok(early >= 2.5 && early < 10, `recorded ${early} s before its transaction`);
  // Meanwhile the walker walked on: a tile 640 px to the right of where that heartbeat placed it is
  // in its view now (reach.test.ts: right after a heartbeat that did not wait, it is out of reach).
  const built = await walker.client.from('game_blocks').insert(blockRow(walker, 20, 0, 'brick'));
  assert.is(built.error, null, JSON.stringify(built.error));
});

test('hostile: a client can neither set the wait it is judged by nor call the function that reads it', async () => {
  const cheat = await signInPlayer(server);
  const asked = await cheat.client.rpc('set_config', { setting_name: 'tessera.waited_ms', new_value: '30000', is_local: true });
  assert.equal([asked.status, asked.error?.code], [404, 'PGRST202']);
  const { rows } = await operator.query<{ allowed: boolean }>(`select has_function_privilege('authenticated', 'game_private.request_time()', 'execute') as allowed`);
  assert.equal(rows, [{ allowed: false }]);
});

test.run();
