/**
 * REST statements run prepared on their connection (server/db/prepared.ts): each shape is
 * prepared once per connection, the least recently run deallocated past the bound, a shape
 * PostgreSQL will not prepare runs with its values inlined, and a prepared statement that has
 * gone (a pooler in front) or whose result changed type is run again inlined, never failing the
 * request.
 */
import type pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Claims } from '../../../server/db/index.js';
import { openPool } from '../../../server/db/pool.js';
import { MAX_PREPARED_TEXT, preparedStatements } from '../../../server/db/prepared.js';
import { signInPlayer, startTestServer, type TestServer } from '../../support/harness.js';
import { metricSamples } from '../../support/metrics.js';
import { enterAtSpawn } from '../../support/rules.js';
import { connectAsOperator, operatorConfig } from '../../support/server.js';

let server: TestServer;
let operator: pg.Client;

const service = { role: 'service_role', exp: Math.floor(Date.now() / 1000) + 3600 } as Claims;
const PREPARED = 'tessera_db_statements_prepared_total{outcome="prepared"}';
const REFUSED = 'tessera_db_statements_prepared_total{outcome="refused"}';

/** The names of the statements prepared on the operator's connection. */
async function preparedNames(): Promise<string[]> {
  return (await operator.query<{ name: string }>('select name from pg_prepared_statements order by prepare_time')).rows.map((row) => row.name);
}

/** The statement name in the text `execute name(values…)`. */
function executed(sql: string): string {
  return sql.slice('execute '.length, sql.indexOf('('));
}

async function metrics(): Promise<Map<string, number>> {
  return metricSamples(await (await fetch(`${server.url}/metrics`)).text());
}

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  await operator.query(`create table public.prepared_probe (id int primary key, label int);
    insert into public.prepared_probe values (1, 10), (2, 20);
    grant select on public.prepared_probe to service_role`);
});

test.after(async () => {
  await operator?.query('drop table if exists public.prepared_probe');
  await operator?.end();
  await server?.stop();
});

test('a shape is prepared once on a connection and runs as EXECUTE of it, with the answer of the inlined statement', async () => {
  const prepared = preparedStatements();
  const statement = { text: 'select label from public.prepared_probe where id = $1', params: [2] };
  const first = await prepared.sql(operator, statement);
  assert.match(first, /^execute tessera_rest_\d+\('2'\)$/);
  const second = await prepared.sql(operator, { ...statement, params: [1] });
  assert.is(second, first.replace("('2')", "('1')"));
  assert.equal(await preparedNames(), [executed(first)]);
  assert.equal((await operator.query(first)).rows, [{ label: 20 }]);
  assert.equal((await operator.query(second)).rows, [{ label: 10 }]);
  await operator.query('deallocate all');
});

test('past its bound a connection deallocates the statement it ran least recently', async () => {
  const prepared = preparedStatements(2);
  const shape = (column: string) => ({ text: `select ${column} from public.prepared_probe where id = $1`, params: [1] });
  const a = executed(await prepared.sql(operator, shape('id')));
  const b = executed(await prepared.sql(operator, shape('label')));
  await prepared.sql(operator, shape('id'));
  const c = executed(await prepared.sql(operator, shape('id, label')));
  assert.equal(await preparedNames(), [a, c]);
  assert.not.ok((await preparedNames()).includes(b));
  await operator.query('deallocate all');
});

test('a shape PostgreSQL refuses to prepare, or one too long, runs with its values inlined', async () => {
  const prepared = preparedStatements();
  // Nothing types the placeholder: PREPARE cannot settle it (42P18); a literal needs no type here.
  const untyped = { text: 'select $1 is null as missing', params: [41] };
  const sql = await prepared.sql(operator, untyped);
  assert.is(sql, "select '41' is null as missing");
  assert.equal((await operator.query(sql)).rows, [{ missing: false }]);
  assert.is(await prepared.sql(operator, untyped), sql, 'a refused shape is not tried again');
  const long = { text: `select $1::int as one -- ${'x'.repeat(MAX_PREPARED_TEXT)}`, params: [1] };
  assert.is(await prepared.sql(operator, long), `select '1'::int as one -- ${'x'.repeat(MAX_PREPARED_TEXT)}`);
  assert.equal(await preparedNames(), []);
});

test('a statement whose prepared form is gone, or whose result changed type, is answered inlined', async () => {
  const db = openPool(await operatorConfig(server), 1, () => {});
  await operator.query('create table public.prepared_retyped (id int primary key, label int); insert into public.prepared_retyped values (1, 7); grant select on public.prepared_retyped to service_role');
  try {
    const statement = { text: 'select label from public.prepared_retyped where id = $1', params: [1] };
    assert.equal((await db.runWithClaims(service, statement)).rows, [{ label: 7 }]);
    await operator.query("alter table public.prepared_retyped alter column label type text using 'seven'");
    assert.equal((await db.runWithClaims(service, statement)).rows, [{ label: 'seven' }]);
    assert.equal((await db.runWithClaims(service, statement)).rows, [{ label: 'seven' }], 'prepared again after the change');
    // The pool's one connection loses its statements behind the pool's back, as behind a pooler.
    await db.query('deallocate all');
    assert.equal((await db.runWithClaims(service, statement)).rows, [{ label: 'seven' }]);
    assert.equal((await db.runWithClaims(service, statement)).rows, [{ label: 'seven' }]);
  } finally {
    await db.close();
    await operator.query('drop table public.prepared_retyped');
  }
});

test('one prepared statement run by each role and caller in turn sees only what each may: row security is applied per execution', async () => {
  const db = openPool(await operatorConfig(server), 1, () => {});
  await operator.query(`create table public.prepared_secrets (owner text primary key, secret text);
    insert into public.prepared_secrets values ('a', 'of a'), ('b', 'of b');
    alter table public.prepared_secrets enable row level security;
    create policy "own secrets" on public.prepared_secrets for select to authenticated
      using (owner = (current_setting('request.jwt.claims', true)::json ->> 'sub'));
    grant select on public.prepared_secrets to anon, authenticated, service_role`);
  try {
    const statement = { text: 'select owner, secret from public.prepared_secrets where owner <> $1 order by owner', params: [''] };
    const caller = (sub: string) => ({ role: 'authenticated', sub, exp: service.exp }) as Claims;
    const seen = async (claims: Claims) => (await db.runWithClaims<{ owner: string }>(claims, statement)).rows.map((row) => row.owner);
    assert.equal(await seen(service), ['a', 'b']);
    assert.equal(await seen(caller('a')), ['a']);
    assert.equal(await seen({ role: 'anon', exp: service.exp } as Claims), []);
    assert.equal(await seen(caller('b')), ['b']);
    assert.equal(await seen(caller('a')), ['a']);
    assert.equal(await seen(service), ['a', 'b']);
    const { rows } = await db.query<{ prepared: number }>("select count(*)::int as prepared from pg_prepared_statements where statement like '%prepared_secrets%'");
    assert.equal(rows, [{ prepared: 1 }], 'every caller ran the one prepared statement');
  } finally {
    await db.close();
    await operator.query('drop table public.prepared_secrets');
  }
});

test('a player\'s repeated REST read is prepared once per connection, not once per request', async () => {
  const player = await signInPlayer(server);
  await enterAtSpawn(player, 'Prepared');
  const before = await metrics();
  for (let i = 0; i < 30; i++) {
    const { data, error } = await player.client.from('game_players').select('player_name').eq('player_id', player.address);
    assert.is(error, null);
    assert.equal(data, [{ player_name: 'Prepared' }]);
  }
  const after = await metrics();
  const prepares = after.get(PREPARED)! - before.get(PREPARED)!;
  assert.ok(prepares >= 1 && prepares < 30, `${prepares} prepares for 30 requests`);
  assert.is(after.get(REFUSED)! - before.get(REFUSED)!, 0);
});

test.run();
