/**
 * REST's schema cache follows the database as PostgREST's does: DDL run while the server is up
 * reloads it (the embedded server's event trigger sends `NOTIFY pgrst, 'reload schema'`, as hosted
 * projects' does), and where no event trigger exists the operator's own NOTIFY does.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { connectAsOperator } from '../support/server.js';
import { waitFor } from '../support/wait.js';
import { createTestClient, removeDataDir, startTestServer, type TestServer } from '../support/harness.js';

let server: TestServer;
let operator: pg.Client;

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
});

test.after(async () => {
  await operator.end();
  await server.stop();
  await removeDataDir(server.dataDir);
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
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.is((await client.from('quiet_probe').select('*')).error?.code, 'PGRST205', 'not reloaded by itself');
  await operator.query(`notify pgrst, 'reload schema'`);
  await waitFor(async () => (await client.from('quiet_probe').select('*')).error === null, { timeout: 3000, interval: 25, message: 'the reload' });
  assert.equal((await client.from('quiet_probe').select('*')).data, []);
});

test.run();
