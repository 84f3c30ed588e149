/**
 * Every refusal a player can meet carries a code from protocol/refusals.ts, and every code there
 * is raised by a rule. The rules are read from supabase/schema.sql (the schema after every
 * migration; test/server/db/schema-sql.test.ts keeps it equal to a fresh dump): each `raise` of each
 * function must name its code in `hint` (or in the `hint` of the JSON body a `raise sqlstate
 * 'PGRST'` sends), except in the operators' own tools.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REFUSALS, SPAWN_BLOCK_CONSTRAINT } from '../../../../protocol/refusals.js';

/** Functions only operators reach: their raises answer an operator, not a player. */
const OPERATORS_ONLY = new Set([
  'game_private.stamp_ban', // game_bans: operators write it (its policies check is_operator())
  'game_private.refuse_log_change', // game_ops_log: written by the operators' functions only
]);

interface Raise {
  fn: string;
  statement: string;
}

/** Each function's name and body in the dump. */
function functionsOf(schema: string): Array<{ name: string; body: string }> {
  return [...schema.matchAll(/^CREATE FUNCTION ([\w.]+)\([\s\S]*?\$function\$;$/gm)].map((m) => ({ name: m[1]!, body: m[0] }));
}

/** The `raise` statements of `body`, each up to its `;` (a `;` inside a string literal is no end). */
function raisesOf(body: string): string[] {
  const statements: string[] = [];
  for (const start of [...body.matchAll(/\braise\b/g)].map((m) => m.index!)) {
    let quoted = false;
    let end = start;
    for (; end < body.length; end++) {
      if (body[end] === "'") quoted = !quoted; // '' inside a literal toggles twice
      else if (body[end] === ';' && !quoted) break;
    }
    statements.push(body.slice(start, end));
  }
  return statements;
}

/** The refusal code a raise statement names: `hint = '...'`, or `'hint', '...'` in a PGRST body. */
function hintOf(statement: string): string | null {
  return /\bhint = '([^']*)'/.exec(statement)?.[1] ?? /'hint', '([^']*)'/.exec(statement)?.[1] ?? null;
}

const schema = readFileSync('supabase/schema.sql', 'utf8');
const players: Raise[] = functionsOf(schema)
  .filter(({ name, body }) => !OPERATORS_ONLY.has(name) && !/:= game_private\.require_operator\('/.test(body))
  .flatMap(({ name, body }) => raisesOf(body).filter((s) => !/^raise (notice|warning|info|debug|log)\b/.test(s)).map((statement) => ({ fn: name, statement })));

const CODES = new Set<string>(Object.values(REFUSALS));

test('the schema has the raises this test reads (a parse that finds nothing would pass anything)', () => {
  const fns = new Set(players.map((r) => r.fn));
  for (const fn of ['game_private.check_claimed_land', 'game_private.take_token', 'game_private.refuse_banned', 'game_private.require_name_free', 'game_private.check_attack']) {
    assert.ok(fns.has(fn), fn);
  }
  assert.is(players.length, 43, 'the raises players can meet (a new rule adds to them)');
  assert.is(raisesOf("raise exception 'a; b' using hint = 'x';\nraise exception 'c';").length, 2);
  assert.is(raisesOf("raise exception 'a; b' using hint = 'x';\nraise exception 'c';")[0], "raise exception 'a; b' using hint = 'x'");
});

test('every raise a player can meet names a refusal code in its hint', () => {
  const missing = players.filter((r) => !CODES.has(hintOf(r.statement) ?? '')).map((r) => `${r.fn}: ${r.statement}`);
  assert.equal(missing, []);
});

test('every refusal code is raised by a rule; spawn also stands for the spawn CHECK on blocks', () => {
  const raised = new Set(players.map((r) => hintOf(r.statement)));
  assert.equal(Object.entries(REFUSALS).filter(([, code]) => !raised.has(code)).map(([key]) => key), []);
  assert.match(schema, new RegExp(`CONSTRAINT ${SPAWN_BLOCK_CONSTRAINT} CHECK \\(\\(\\(abs\\(x\\) > 2\\) OR \\(abs\\(y\\) > 2\\)\\)\\)`));
});

test('codes are distinct and namespaced', () => {
  const codes = Object.values(REFUSALS);
  assert.is(new Set(codes).size, codes.length);
  for (const code of codes) assert.match(code, /^tessera:[a-z-]+$/);
});

test.run();
