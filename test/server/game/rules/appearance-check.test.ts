/**
 * public.is_valid_appearance(), the CHECK of game_players.appearance, as one expression
 * (20250802000100_presence_rules_without_repeats.sql), gives the answer of the subquery it
 * replaced for every kind of value: the keys a look may have, strings of their forms, and each
 * way a hostile client could break one.
 */
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectAsOperator } from '../../../support/server.js';
import { startTestServer, type TestServer } from '../../../support/harness.js';

let server: TestServer;
let admin: pg.Client;

test.before(async () => {
  server = await startTestServer();
  admin = await connectAsOperator(server);
});

test.after(async () => {
  await admin.end();
  await server.stop();
});

/** The check as it stood before, from its migration (20250601000000_functions_planned_once.sql), created as the reference. */
function referenceCheck(): string {
  const migration = readFileSync('supabase/migrations/20250601000000_functions_planned_once.sql', 'utf8');
  const definition = /create or replace function public\.is_valid_appearance\(a jsonb\)[\s\S]*?end \$\$;/.exec(migration);
  if (!definition) throw new Error('the earlier is_valid_appearance is not in its migration');
  return definition[0].replace('public.is_valid_appearance', 'pg_temp.reference_appearance');
}

const CASES: Array<[unknown, boolean]> = [
  [{}, true],
  [{ skinColor: '#f5c6a5', hairColor: '#3B2A1A', hairStyle: 'curly', shirtColor: '#3a6ea5', shirtStyle: 'hoodie', pantsColor: '#2d2d2d', shoeColor: '#1a1a1a' }, true],
  [{ hairStyle: 'bald' }, true],
  [{ skinColor: '#f5c6a' }, false],
  [{ skinColor: '#f5c6a5 ' }, false],
  [{ skinColor: '#f5c6a5 #000000' }, false],
  [{ skinColor: 'red' }, false],
  [{ skinColor: null }, false],
  [{ skinColor: 123456 }, false],
  [{ skinColor: ['#f5c6a5'] }, false],
  [{ hairStyle: 'mohawk' }, false],
  [{ hairStyle: null }, false],
  [{ hairStyle: true }, false],
  [{ shirtStyle: 'formal' }, true],
  [{ shirtStyle: 'Formal' }, false],
  [{ shirtStyle: { a: 1 } }, false],
  [{ hatColor: '#000000' }, false],
  [{ shoesColor: '#000000' }, false],
  [{ skinColor: '#ffffff', extra: 'x' }, false],
  [[], false],
  ['#ffffff', false],
  [42, false],
  [null, false],
];

test('every case answers as the reference does, and as expected', async () => {
  await admin.query('begin');
  try {
    await admin.query(referenceCheck());
    for (const [value, expected] of CASES) {
      const { rows } = await admin.query<{ now: boolean | null; before: boolean | null }>(
        'select public.is_valid_appearance($1::jsonb) as now, pg_temp.reference_appearance($1::jsonb) as before',
        [JSON.stringify(value)],
      );
      assert.equal({ value, ...rows[0] }, { value, now: expected, before: expected });
    }
    const sqlNull = (await admin.query('select public.is_valid_appearance(null) as now, pg_temp.reference_appearance(null) as before')).rows[0];
    assert.equal(sqlNull, { now: null, before: null }, 'SQL null: the column is checked as "appearance is null or ..."');
  } finally {
    await admin.query('rollback');
  }
});

test.run();
