/**
 * REST's schema cache follows the database as PostgREST's does: DDL run while the server is up
 * reloads it (the embedded server's event trigger sends `NOTIFY pgrst, 'reload schema'`, as hosted
 * projects' does), and where no event trigger exists the operator's own NOTIFY does. The server's
 * own functions stay out of the game's schemas, and a database left by an earlier version, which
 * kept the watch's function in `game_private`, is cleaned up at start.
 */
import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { connectAsOperator } from '../../support/server.js';
import { sleep, waitFor } from '../../support/wait.js';
import { SCHEMA_FILE } from '../../../scripts/schema-dump.js';
import { createTestClient, makeDataDir, removeDataDir, startTestServer, type TestServer } from '../../support/harness.js';

let server: TestServer;
let operator: pg.Client;

test.before(async () => {
  server = await startTestServer(await makeDataDir());
  operator = await connectAsOperator(server);
});

test.after(async () => {
  await operator.end();
  await server.stop();
  await removeDataDir(server.dataDir);
});

/** Each event trigger with the schema of the function it runs. */
async function eventTriggers(): Promise<{ name: string; function: string }[]> {
  const { rows } = await operator.query<{ name: string; function: string }>(`
    select e.evtname as name, p.oid::regprocedure::text as function
    from pg_event_trigger e join pg_proc p on p.oid = e.evtfoid order by e.evtname`);
  return rows;
}

test("the server's event triggers run functions in its own schemas, none in the game's", async () => {
  assert.equal(await eventTriggers(), [
    { name: 'pgrst_schema_reload', function: 'extensions.pgrst_schema_reload()' },
    { name: 'realtime_schema_change', function: 'realtime.notify_schema_change()' },
  ]);
  // Every function in the game's schemas is one the migrations made (supabase/schema.sql names them).
  const made = [...(await readFile(SCHEMA_FILE, 'utf8')).matchAll(/^-- Name: (.+); Type: FUNCTION; Schema: (\w+);/gm)].map((m) => `${m[2]}.${m[1]}`);
  await operator.query(`begin; set local search_path = ''`);
  const { rows } = await operator.query<{ name: string }>(`
    select format('%s.%s(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)) as name
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('public', 'game_private')`);
  await operator.query('commit');
  assert.ok(made.length > 0);
  assert.equal(rows.map((row) => row.name).sort(), made.sort());
});

test('a table and a function created while the server runs are served without a restart', async () => {
  const client = createTestClient(server);
  const before = await client.from('reload_probe').select('*');
  assert.is(before.error?.code, 'PGRST205', 'unknown before it exists');
  await operator.query(`
    create table public.reload_probe (id int primary key, label text);
    grant select on public.reload_probe to anon;
    insert into public.reload_probe values (1, 'one');
    create function public.reload_answer() returns int language sql as 'select 42';
    grant execute on function public.reload_answer() to anon;`);
  await waitFor(async () => (await client.from('reload_probe').select('*')).error === null, { timeout: 3000, interval: 25, message: 'the new table' });
  assert.equal((await client.from('reload_probe').select('id,label')).data, [{ id: 1, label: 'one' }]);
  const answer = await client.rpc('reload_answer');
  assert.equal([answer.data, answer.error, answer.status], [42, null, 200]);
});

test("without the event trigger, the operator's NOTIFY pgrst reloads it", async () => {
  const client = createTestClient(server);
  await operator.query('drop event trigger pgrst_schema_reload');
  await operator.query('create table public.quiet_probe (id int primary key); grant select on public.quiet_probe to anon;');
  // A reload already under way could still pick the table up; a later request settles that.
  await sleep(200); // kept: no event tells that a reload begun before is over
  assert.is((await client.from('quiet_probe').select('*')).error?.code, 'PGRST205', 'not reloaded by itself');
  await operator.query(`notify pgrst, 'reload schema'`);
  await waitFor(async () => (await client.from('quiet_probe').select('*')).error === null, { timeout: 3000, interval: 25, message: 'the reload' });
  assert.equal((await client.from('quiet_probe').select('*')).data, []);
});

test('a database left by an earlier version loses the watch function it kept in game_private', async () => {
  await operator.query(`
    drop event trigger if exists pgrst_schema_reload;
    create function game_private.notify_pgrst_reload() returns event_trigger language plpgsql as $$
    begin
      perform pg_notify('pgrst', 'reload schema');
    end $$;
    create event trigger pgrst_schema_reload on ddl_command_end execute function game_private.notify_pgrst_reload();`);
  assert.equal((await eventTriggers())[0], { name: 'pgrst_schema_reload', function: 'game_private.notify_pgrst_reload()' });
  await operator.end();
  await server.stop();
  server = await startTestServer(server.dataDir);
  operator = await connectAsOperator(server);
  assert.equal((await eventTriggers())[0], { name: 'pgrst_schema_reload', function: 'extensions.pgrst_schema_reload()' });
  const { rows } = await operator.query(`select to_regprocedure('game_private.notify_pgrst_reload()') as old`);
  assert.equal(rows, [{ old: null }]);
});

test.run();
