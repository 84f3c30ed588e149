import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inlineParams, NulCharacterError, sqlLiteral } from '../../../server/db/literals.js';

test('each value becomes the literal PostgreSQL reads as that parameter', () => {
  assert.is(sqlLiteral(null), 'null');
  assert.is(sqlLiteral(undefined), 'null');
  assert.is(sqlLiteral("it's"), "'it''s'");
  assert.is(sqlLiteral('a\\b'), " E'a\\\\b'");
  assert.is(sqlLiteral(42), "'42'");
  assert.is(sqlLiteral(true), "'true'");
  assert.is(sqlLiteral(['a', 'b"c', null]), ` E'{"a","b\\\\"c",NULL}'`);
  assert.is(sqlLiteral({ k: [1] }), `'{"k":[1]}'`);
  assert.throws(() => sqlLiteral('a\0b'), (error: unknown) => error instanceof NulCharacterError && error.code === '22021');
  assert.throws(() => sqlLiteral(['a\0']), (error: unknown) => error instanceof NulCharacterError);
});

test('placeholders are replaced outside quoted identifiers and strings only', () => {
  assert.is(inlineParams('select $1, $2::int from t where c in ($1)', ['x', 5]), "select 'x', '5'::int from t where c in ('x')");
  assert.is(inlineParams(`select "a$1", '$1''$2', $2 from x$1`, ['p', 'q']), `select "a$1", '$1''$2', 'q' from x$1`);
  assert.is(inlineParams('select $10, $1', Array.from({ length: 10 }, (_, i) => i + 1)), "select '10', '1'");
  assert.is(inlineParams('select 1', []), 'select 1');
  assert.throws(() => inlineParams('select $2', ['only one']), /no parameter for \$2/);
});

test.run();
