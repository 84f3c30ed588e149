/**
 * supabase/schema.sql is the schema the migrations leave, dumped from a fresh database: the
 * committed file must equal a new dump (else it is stale), and it must be the whole schema:
 * loaded into a database stripped of the game's objects, it gives back the same dump (but for
 * the parentheses PostgreSQL drops when it reads its own print).
 */
import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bootstrap } from '../../../server/db/bootstrap.js';
import { migrate } from '../../../server/db/migrate.js';
import { openPool } from '../../../server/db/pool.js';
import { dumpSchema, SCHEMA_COMMAND, SCHEMA_FILE, withMigratedDatabase } from '../../../scripts/schema-dump.js';

const MIGRATIONS = 'supabase/migrations';

/** Removes what the migrations made of the game: its schemas' contents and its policies on realtime.messages. */
const STRIP_GAME_SQL = `
drop schema game_private cascade;
do $$
declare r record;
begin
  for r in select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname = 'public' loop
    execute 'drop table if exists ' || r.name || ' cascade';
  end loop;
  for r in select p.oid::regprocedure::text as name from pg_proc p where p.pronamespace = 'public'::regnamespace loop
    execute 'drop function if exists ' || r.name || ' cascade';
  end loop;
  for r in select polname from pg_policy where polrelid = 'realtime.messages'::regclass loop
    execute format('drop policy %I on realtime.messages', r.polname);
  end loop;
end $$;
`;

let fresh = '';
let reloaded = '';

// A set-up failure is printed: uvu's before hook would not show it.
test.before(async () => {
  try {
    await dumpTwice();
  } catch (error) {
    console.error('schema-sql set-up failed:', error);
    throw error;
  }
});

/** Dumps a freshly migrated database, then a second one stripped of the game and loaded from that dump. */
async function dumpTwice(): Promise<void> {
  await withMigratedDatabase(MIGRATIONS, async (db, connection) => {
    fresh = await dumpSchema(db);
    await db.query('create database schema_reload');
    const copy = openPool({ ...connection, database: 'schema_reload' }, 1, (error) => console.error(`schema_reload: ${error.message}`));
    try {
      await bootstrap(copy);
      await migrate(copy, MIGRATIONS);
      await copy.exec(STRIP_GAME_SQL);
      await copy.exec(fresh);
      reloaded = await dumpSchema(copy);
    } finally {
      await copy.close();
    }
  });
}

/**
 * `sql` without parentheses: PostgreSQL prints an expression read back from its own print with
 * its nesting flattened (`((a AND b) AND c)` comes back as `(a AND b AND c)`), as a pg_dump
 * restored and dumped again does, so a reloaded schema is compared without them.
 */
function withoutParentheses(sql: string): string {
  return sql.replace(/[()]/g, '');
}

/** Where two texts first differ, as a line number and both lines. */
function firstDifference(expected: string, actual: string): string {
  const [a, b] = [expected.split('\n'), actual.split('\n')];
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: expected ${JSON.stringify(a[at] ?? '(end)')}, found ${JSON.stringify(b[at] ?? '(end)')}`;
}

test(`${SCHEMA_FILE} is the dump of a database the migrations were applied to`, async () => {
  const committed = await readFile(SCHEMA_FILE, 'utf8').catch(() => '');
  if (committed !== fresh) assert.unreachable(`${SCHEMA_FILE} is stale: run ${SCHEMA_COMMAND} (${firstDifference(fresh, committed)})`);
});

test('the dump holds the whole schema: loaded where the game was stripped, it dumps the same again', () => {
  const [expected, found] = [withoutParentheses(fresh), withoutParentheses(reloaded)];
  if (found !== expected) assert.unreachable(`the reloaded schema differs, ${firstDifference(expected, found)}`);
  assert.match(fresh, /^CREATE FUNCTION public\.wallet_address\(\)$/m);
  assert.match(fresh, /^CREATE POLICY "players in the world hear their regions" ON realtime\.messages FOR SELECT TO authenticated /m);
  assert.not.match(fresh, /pgrst|realtime\.capture|CREATE TABLE realtime|CREATE TABLE auth/);
});

test.run();
