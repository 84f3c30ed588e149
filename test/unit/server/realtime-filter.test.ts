import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { matchesFilter, parseFilter, type Filter } from '../../../server/realtime/filter.js';
import { compileRegex, MAX_PATTERN_STEPS } from '../../../server/realtime/patterns.js';

/** A table as the realtime catalogue describes it: a large `clip` column (up to 1,400,000 characters) like voice clips' audio. */
const TABLE = {
  name: 'probe',
  types: new Map([
    ['id', 'int4'],
    ['label', 'text'],
    ['flag', 'bool'],
    ['clip', 'text'],
  ]),
  typeNames: new Map([
    ['id', 'integer'],
    ['label', 'text'],
    ['flag', 'boolean'],
    ['clip', 'text'],
  ]),
  largeText: new Map([['clip', 1_400_000]]),
};

const parse = (text: string): Filter => parseFilter(text, TABLE);
const refusal = (text: string): string => {
  try {
    parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};
const PREFIX = 'Error parsing `filter` params: ';

/** The labels among `labels` whose row (label, with id 1 and flag true) passes `filter`. */
const passing = (filter: string, labels: (string | null)[]): (string | null)[] => {
  const parsed = parse(filter);
  return labels.filter((label) => matchesFilter(parsed, { id: 1, label, flag: true }));
};

test('every upstream operator is read, with its not. form', () => {
  const ops = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'like', 'ilike', 'match', 'imatch', 'isdistinct'];
  for (const op of ops) {
    const [plain] = parse(`label=${op}.a`);
    assert.equal([plain!.op, plain!.negate, plain!.values], [op, false, ['a']]);
    const [negated] = parse(`label=not.${op}.a`);
    assert.equal([negated!.op, negated!.negate, negated!.values], [op, true, ['a']]);
  }
  assert.equal(parse('label=in.(a,"b,c", d )').map((c) => [c.op, c.values]), [['in', ['a', 'b,c', 'd']]]);
  assert.equal(parse('label=not.in.(a)').map((c) => [c.op, c.negate]), [['in', true]]);
  assert.equal(parse('label=is.null').map((c) => c.values), [['null']]);
  assert.equal(parse('flag=not.is.true').map((c) => [c.op, c.negate, c.values]), [['is', true, ['true']]]);
  assert.equal(parse('label=eq."a,b\\"c"').map((c) => c.values), [['a,b"c']]);
  assert.equal(parse('label=like.a%,label=not.like.ab%,id=gt.0,flag=is.true').length, 4);
  assert.equal(parse('  '), []);
});

test('each operator keeps the rows SQL would keep; NULL passes only is and isdistinct, negated or not', () => {
  const labels = ['apple', 'Apple', 'banana', null];
  assert.equal(passing('label=eq.apple', labels), ['apple']);
  assert.equal(passing('label=neq.apple', labels), ['Apple', 'banana']);
  assert.equal(passing('label=not.eq.apple', labels), ['Apple', 'banana']);
  assert.equal(passing('label=lt.b', labels), ['apple', 'Apple']);
  assert.equal(passing('label=gte.b', labels), ['banana']);
  assert.equal(passing('label=in.(apple,banana)', labels), ['apple', 'banana']);
  assert.equal(passing('label=not.in.(apple,banana)', labels), ['Apple']);
  assert.equal(passing('label=like.a%', labels), ['apple']);
  assert.equal(passing('label=like._pple', labels), ['apple', 'Apple']);
  assert.equal(passing('label=ilike.A%', labels), ['apple', 'Apple']);
  assert.equal(passing('label=not.like.a%', labels), ['Apple', 'banana']);
  assert.equal(passing('label=like.50\\%', ['50%', '500']), ['50%']);
  assert.equal(passing('label=match.^a', labels), ['apple']);
  assert.equal(passing('label=match.an(an)+a$', labels), ['banana']);
  assert.equal(passing('label=imatch.^A', labels), ['apple', 'Apple']);
  assert.equal(passing('label=not.imatch.^A', labels), ['banana']);
  assert.equal(passing('label=match.[[:upper:]]', labels), ['Apple']);
  assert.equal(passing('label=is.null', labels), [null]);
  assert.equal(passing('label=not.is.null', labels), ['apple', 'Apple', 'banana']);
  assert.equal(passing('label=isdistinct.apple', labels), ['Apple', 'banana', null]);
  assert.equal(passing('label=not.isdistinct.apple', labels), ['apple']);
  assert.equal(passing('flag=is.true', ['x']), ['x']);
  assert.equal(passing('flag=is.false', ['x']), []);
  assert.equal(passing('label=like.%a%,label=not.match.^b,id=lte.1', labels), ['apple']);
});

test('malformed filters and values are refused in upstream\'s words', () => {
  assert.equal(refusal('label=foo.a'), `${PREFIX}["foo", "a"]`);
  assert.equal(refusal('label=not.foo.a'), `${PREFIX}["foo", "a"]`);
  assert.equal(refusal('undefined'), `${PREFIX}["undefined"]`);
  assert.equal(refusal('label=eq'), `${PREFIX}["eq"]`);
  assert.equal(refusal('label=eq.a,,id=eq.1'), `${PREFIX}filter must not contain empty segments (check for extra commas)`);
  assert.equal(refusal('label=in.a,b'), `${PREFIX}\`in\` filter value must be wrapped by parentheses`);
  assert.equal(refusal('nope=eq.1'), `${PREFIX}invalid column for filter nope`);
  assert.equal(refusal('label=is.maybe'), `${PREFIX}invalid value for is filter: must be null, true, false, or unknown`);
  assert.equal(refusal('label=is.true'), `${PREFIX}is true filter requires a boolean column, got text`);
  assert.equal(refusal('id=like.1%'), `${PREFIX}operator like requires a text-compatible column type, got integer`);
  assert.equal(refusal('id=imatch.^1'), `${PREFIX}operator imatch requires a text-compatible column type, got integer`);
  assert.equal(refusal('label=match.(a'), `${PREFIX}invalid regular expression for match filter: invalid regular expression: parentheses () not balanced`);
  assert.equal(refusal('label=match.[a'), `${PREFIX}invalid regular expression for match filter: invalid regular expression: brackets [] not balanced`);
  assert.equal(refusal('label=match.*a'), `${PREFIX}invalid regular expression for match filter: invalid regular expression: quantifier operand invalid`);
  assert.equal(refusal('label=like.a\\'), `${PREFIX}LIKE pattern must not end with escape character`);
  assert.equal(refusal('id=eq.one'), `${PREFIX}invalid input for int4 column id: "one"`);
  assert.equal(refusal('flag=isdistinct.maybe'), `${PREFIX}invalid input for bool column flag: "maybe"`);
});

test('the bounds REST keeps: patterns and other costly operators refused on a large column, long patterns and lists refused', () => {
  const large = 'is allowed on text columns of at most 1000 characters; clip holds up to 1400000';
  for (const op of ['like', 'ilike', 'match', 'imatch']) {
    assert.equal(refusal(`clip=${op}.A%`), `${PREFIX}Pattern filter on a large column: probe.clip (${op} ${large})`);
    assert.equal(refusal(`clip=not.${op}.A%`), `${PREFIX}Pattern filter on a large column: probe.clip (${op} ${large})`);
  }
  for (const op of ['lt', 'gte', 'isdistinct']) assert.equal(refusal(`clip=${op}.A`), `${PREFIX}Filter on a large column: probe.clip (${op} ${large})`);
  assert.equal(refusal('clip=in.(A,B)'), `${PREFIX}Filter on a large column: probe.clip (in ${large})`);
  assert.equal(parse('clip=eq.A,clip=neq.B,clip=is.null,clip=not.is.null').length, 4);
  assert.equal(refusal(`label=like.${'a'.repeat(100)}`), 'accepted');
  assert.equal(refusal(`label=like.${'a'.repeat(101)}`), `${PREFIX}Pattern too long: like patterns have at most 100 characters; this one has 101`);
  assert.equal(refusal(`label=imatch.${'a'.repeat(150)}`), `${PREFIX}Pattern too long: imatch patterns have at most 100 characters; this one has 150`);
  const list = (n: number) => `label=in.(${Array.from({ length: n }, (_, i) => i).join(',')})`;
  assert.equal(refusal(list(100)), 'accepted');
  assert.equal(refusal(list(101)), `${PREFIX}too many values for \`in\` filter. Maximum 100`);
  assert.equal(refusal(Array.from({ length: 17 }, () => 'id=gt.0').join(',')), `${PREFIX}a filter joins at most 16 conditions`);
});

test('a regular expression costs its value\'s length times its steps: no backtracking, and one too large is refused', () => {
  const started = performance.now();
  assert.equal(compileRegex('^(a|aa)+$', false)('a'.repeat(1000) + 'b'), false);
  assert.equal(compileRegex('^(a+)+$', false)('a'.repeat(1000) + '!'), false);
  assert.ok(performance.now() - started < 500, 'two catastrophic patterns for a backtracking engine are read in linear time');
  assert.equal(refusal('label=match.(a{100}){100}'), `${PREFIX}invalid regular expression for match filter: pattern too complex: it compiles to more than ${MAX_PATTERN_STEPS} steps`);
  assert.equal(refusal('label=match.(a)\\1'), `${PREFIX}invalid regular expression for match filter: back references are not supported in filters`);
  assert.equal(refusal('label=match.a(?=b)'), `${PREFIX}invalid regular expression for match filter: lookaround and embedded options are not supported in filters`);
});

test.run();
