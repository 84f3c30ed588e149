/**
 * Every REST operator and modifier under the same bounds (docs/rest-bounds.md): for each row of
 * that table, the refused shape with its exact status and body beside an honest request of the
 * same operator that succeeds with exact rows. Through supabase-js where it can write the
 * request, raw HTTP otherwise. Probe tables with arrays, ranges, JSON, an ICU collation and a
 * foreign key are created by the database operator before the server starts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectAsOperator } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';
import { removeDataDir, signInPlayer, startTestServerAfter, type TestPlayer, type TestServer } from '../../support/harness.js';
import { playerAtSpawn } from '../../support/rules.js';

let server: TestServer;
let alice: TestPlayer;

const PROBES = `
  create table public.bound_probe (
    id int primary key,
    name text collate "und-x-icu" not null,
    tags text[] not null,
    span int4range not null,
    doc jsonb not null
  );
  insert into public.bound_probe values
    (1, 'a', '{red,blue}', '[1,5)', '{"a": {"b": 1}}'),
    (2, 'B', '{green}', '[10,20)', '{"a": {"b": 2}}'),
    (3, 'Z', '{red}', '[30,40)', '{"a": {"b": 3}}');
  create table public.bound_child (id int primary key, probe_id int not null references public.bound_probe, label text not null);
  insert into public.bound_child values (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'z');
  create function public.bound_rows() returns setof public.bound_probe language sql stable as $$ select * from public.bound_probe $$;
  create function public.bound_wait() returns int language sql as $$ select 1 from (select pg_advisory_xact_lock_shared(7071)) l $$;
  grant select, insert, update on public.bound_probe to authenticated;
  grant select on public.bound_child to authenticated;`;

const CLIP = 'QUJD'.repeat(1000);

test.before(async () => {
  server = await startTestServerAfter(PROBES);
  alice = await playerAtSpawn(server, 'Alice');
  const clip = await alice.client.from('game_voice_messages').insert({ player_id: alice.address, player_name: 'Alice', audio_data: CLIP, x: 1, y: 1 });
  assert.is(clip.error, null);
});

test.after(async () => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

/** A raw REST request as alice. */
async function rest(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: unknown }> {
  const token = (await alice.client.auth.getSession()).data.session!.access_token;
  const response = await fetch(`${server.url}/rest/v1/${path}`, {
    method: init.method ?? 'GET',
    headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    body: init.body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

interface Refusal {
  code: string;
  message: string;
  details: string;
  hint: string;
}

/** Asserts a supabase-js answer is the 400 refusal `expected`. */
function refusedJs(answer: { status: number; error: unknown; data: unknown }, expected: Refusal): void {
  assert.equal({ status: answer.status, error: answer.error, data: answer.data }, { status: 400, error: expected, data: null });
}

/** Asserts a raw request is the 400 refusal `expected`. */
async function refusedRaw(path: string, expected: Refusal, init: Parameters<typeof rest>[1] = {}): Promise<void> {
  assert.equal(await rest(path, init), { status: 400, body: expected }, path);
}

const probe = (columns = 'id') => alice.client.from('bound_probe').select(columns);
const ids = (data: unknown) => (data as { id: number }[] | null)?.map((row) => row.id);
const list = (n: number, value: (i: number) => string) => Array.from({ length: n }, (_, i) => value(i));

const LARGE = (kind: string, op: string): Refusal => ({
  code: 'TS101',
  message: `${kind} on a large column: game_voice_messages.audio_data`,
  details: `${op} is allowed on text columns of at most 1000 characters; audio_data holds up to 1000000`,
  hint: 'Filter on another column (eq, in, gt, ...)',
});
const TOO_LONG = (form: string, written: string, n: number): Refusal => ({
  code: 'TS102',
  message: `${form} list too long`,
  details: `${written} lists ${n} values; at most 100`,
  hint: 'Split the list over several requests',
});

const clips = () => alice.client.from('game_voice_messages').select('player_name');

test('eq, neq, is: the only filters a large column takes; eq(any)/neq(all) lists hold 100 values', async () => {
  assert.equal((await clips().eq('audio_data', CLIP)).data, [{ player_name: 'Alice' }]);
  assert.equal((await clips().neq('audio_data', CLIP)).data, []);
  assert.equal((await clips().not('audio_data', 'is', null)).data, [{ player_name: 'Alice' }]);
  refusedJs(await clips().filter('audio_data', 'eq(any)', `{${CLIP},A}`), LARGE('Filter', 'eq(any)'));
  refusedJs(await clips().in('audio_data', [CLIP]), LARGE('Filter', 'in'));
  refusedJs(await clips().isDistinct('audio_data', 'A'), LARGE('Filter', 'isdistinct'));
  assert.equal(ids((await probe().filter('id', 'eq(any)', `{${list(100, (i) => String(i + 2)).join(',')}}`).order('id')).data), [2, 3]);
  refusedJs(await probe().filter('id', 'eq(any)', `{${list(101, String).join(',')}}`), TOO_LONG('eq(any)', 'id=eq(any).{...}', 101));
  assert.equal(ids((await probe().filter('id', 'neq(all)', `{${list(100, (i) => String(i + 2)).join(',')}}`)).data), [1]);
  refusedJs(await probe().filter('id', 'neq(all)', `{${list(101, String).join(',')}}`), TOO_LONG('neq(all)', 'id=neq(all).{...}', 101));
  // Values count as written; a repeated value is sent once (neq(any) then stops at the second).
  assert.equal(ids((await probe().filter('id', 'neq(any)', `{${list(100, () => '1').join(',')}}`).order('id')).data), [2, 3]);
  refusedJs(await probe().filter('id', 'neq(any)', `{${list(101, () => '1').join(',')}}`), TOO_LONG('neq(any)', 'id=neq(any).{...}', 101));
});

test('lt, lte, gt, gte: refused on a large column; (any)/(all) hold 100 values and answer as SQL does', async () => {
  refusedJs(await clips().lt('audio_data', 'B'), LARGE('Filter', 'lt'));
  refusedJs(await clips().filter('audio_data', 'not.gte(all)', '{A,B}'), LARGE('Filter', 'gte(all)'));
  assert.equal(ids((await probe().filter('id', 'lt(any)', `{${list(100, (i) => String(i - 97)).join(',')}}`).order('id')).data), [1]);
  refusedJs(await probe().filter('id', 'lt(any)', `{${list(101, String).join(',')}}`), TOO_LONG('lt(any)', 'id=lt(any).{...}', 101));
  refusedJs(await probe().filter('id', 'not.gt(all)', `{${list(101, String).join(',')}}`), TOO_LONG('gt(all)', 'id=not.gt(all).{...}', 101));
  const answers: Array<[string, string, number[]]> = [
    ['lt(any)', '{2,3}', [1, 2]],
    ['lte(any)', '{1,2}', [1, 2]],
    ['gt(any)', '{2,3}', [3]],
    ['gte(any)', '{2,3}', [2, 3]],
    ['lt(all)', '{2,3}', [1]],
    ['lte(all)', '{2,3}', [1, 2]],
    ['gt(all)', '{1,2}', [3]],
    ['gte(all)', '{2,3}', [3]],
    ['lt(any)', '{}', []],
    ['not.lt(any)', '{}', [1, 2, 3]],
    ['lt(all)', '{}', [1, 2, 3]],
    ['not.lt(all)', '{}', []],
  ];
  for (const [op, values, expected] of answers) {
    assert.equal(ids((await probe().filter('id', op, values).order('id')).data), expected, `${op}.${values}`);
  }
  // The list's greatest or least value is taken in the column's collation, not the database's
  // ("C", where 'B' < 'Z' < 'a'): in "und-x-icu" 'a' < 'B' < 'Z'.
  assert.equal(ids((await probe().filter('name', 'lt(any)', '{a,B}').order('id')).data), [1]);
  assert.equal(ids((await probe().filter('name', 'gt(all)', '{a,B}').order('id')).data), [3]);
  assert.equal(ids((await probe().filter('name', 'gte(all)', '{a,Z}').order('id')).data), [3]);
});

test('like, ilike, match, imatch: refused on a large column; 100 pattern characters, together for (any)/(all)', async () => {
  for (const op of ['like', 'ilike', 'match', 'imatch']) {
    refusedJs(await clips().filter('audio_data', op, 'QUJD'), LARGE('Pattern filter', op));
  }
  refusedJs(await clips().likeAnyOf('audio_data', ['Q*']), LARGE('Pattern filter', 'like(any)'));
  assert.equal((await clips().ilike('player_name', 'ali*')).data, [{ player_name: 'Alice' }]);
  assert.equal(ids((await probe().filter('name', 'imatch', '^b')).data), [2]);
  assert.equal(ids((await probe().filter('name', 'match(any)', '{^a,^Z}').order('id')).data), [1, 3]);
  // 'q0'...'q29' and 'B': 81 characters. Then 'q0'...'q36': 101.
  assert.equal(ids((await probe().likeAnyOf('name', [...list(30, (i) => `q${i}`), 'B']).order('id')).data), [2]);
  refusedJs(await probe().likeAnyOf('name', list(37, (i) => `q${i}`)), {
    code: 'TS101',
    message: 'Pattern too long',
    details: 'like(any) patterns have at most 100 characters together; these have 101',
    hint: 'Use a shorter pattern',
  });
  assert.equal(ids((await probe().ilikeAllOf('name', ['*', 'b'])).data), [2]);
  refusedJs(await probe().filter('name', 'imatch(all)', `{${list(40, (i) => `q${i}`).join(',')}}`), {
    code: 'TS101',
    message: 'Pattern too long',
    details: 'imatch(all) patterns have at most 100 characters together; these have 110',
    hint: 'Use a shorter pattern',
  });
  refusedJs(await probe().filter('name', 'match', 'a'.repeat(101)), {
    code: 'TS101',
    message: 'Pattern too long',
    details: 'match patterns have at most 100 characters; this one has 101',
    hint: 'Use a shorter pattern',
  });
});

test('in: refused on a large column; 100 values', async () => {
  assert.equal(ids((await probe().in('id', list(100, (i) => String(i + 3)))).data), [3]);
  refusedJs(await probe().in('id', list(101, String)), TOO_LONG('in', 'id=in.(...)', 101));
  refusedJs(await probe().not('id', 'in', `(${list(101, String).join(',')})`), TOO_LONG('in', 'id=not.in.(...)', 101));
});

test('fts, plfts, phfts, wfts: refused on a large column; search texts of 100 characters', async () => {
  const search = alice.client.from('game_voice_messages').select('player_name');
  refusedJs(await search.textSearch('audio_data', 'QUJD'), LARGE('Full-text filter', 'fts'));
  for (const [type, op] of [['plain', 'plfts'], ['phrase', 'phfts'], ['websearch', 'wfts']] as const) {
    refusedJs(await clips().textSearch('audio_data', 'QUJD', { type, config: 'english' }), LARGE('Full-text filter', `${op}(english)`));
    assert.equal((await clips().textSearch('player_name', 'alice', { type, config: 'english' })).data, [{ player_name: 'Alice' }], op);
  }
  assert.equal((await clips().textSearch('player_name', 'Alice')).data, [{ player_name: 'Alice' }]);
  refusedJs(await clips().textSearch('player_name', 'a'.repeat(101), { type: 'websearch' }), {
    code: 'TS101',
    message: 'Search text too long',
    details: 'wfts search texts have at most 100 characters; this one has 101',
    hint: 'Search for fewer words',
  });
});

test('cs, cd, ov and the range operators: 100 elements in a value, 100 values in an (any)/(all) list', async () => {
  assert.equal(ids((await probe().contains('tags', ['red']).order('id')).data), [1, 3]);
  assert.equal(ids((await probe().containedBy('tags', ['red', 'blue', 'green']).order('id')).data), [1, 2, 3]);
  assert.equal(ids((await probe().overlaps('tags', [...list(99, (i) => `t${i}`), 'green'])).data), [2]);
  refusedJs(await probe().overlaps('tags', list(101, (i) => `t${i}`)), TOO_LONG('ov', 'tags=ov.{...}', 101));
  refusedJs(await probe().contains('tags', list(101, (i) => `t${i}`)), TOO_LONG('cs', 'tags=cs.{...}', 101));
  refusedJs(await probe().containedBy('tags', list(101, (i) => `t${i}`)), TOO_LONG('cd', 'tags=cd.{...}', 101));
  refusedJs(await clips().contains('audio_data', 'A'), LARGE('Filter', 'cs'));
  assert.equal(ids((await probe().rangeLt('span', '[6,8)')).data), [1]);
  assert.equal(ids((await probe().rangeGt('span', '[6,8)').order('id')).data), [2, 3]);
  assert.equal(ids((await probe().rangeGte('span', '[6,8)').order('id')).data), [2, 3]);
  assert.equal(ids((await probe().rangeLte('span', '[6,8)')).data), [1]);
  assert.equal(ids((await probe().rangeAdjacent('span', '[5,10)').order('id')).data), [1, 2]);
  assert.equal(ids((await probe().filter('span', 'adj(any)', '{"[5,6)","[40,50)"}').order('id')).data), [1, 3]);
  refusedJs(await probe().filter('span', 'adj(any)', `{${list(101, (i) => `"[${i},${i + 1})"`).join(',')}}`), TOO_LONG('adj(any)', 'span=adj(any).{...}', 101));
  refusedJs(await probe().filter('span', 'sl', `{${list(100, (i) => `[${i},${i + 1})`).join(',')}}`), TOO_LONG('sl', 'span=sl.{...}', 200));
});

test('or, and, not: 3 levels and 50 conditions a tree, 100 conditions a request', async () => {
  assert.equal(ids((await probe().or('id.eq.1,and(id.gt.1,or(id.eq.3,name.eq.nobody))').order('id')).data), [1, 3]);
  refusedJs(await probe().or('id.eq.1,and(id.gt.1,or(id.eq.3,and(id.eq.2,id.eq.4)))'), {
    code: 'TS103',
    message: 'Logic tree too large',
    details: 'or nests 4 levels and 5 conditions; at most 3 levels and 50 conditions',
    hint: 'Split the request, or filter with in.(...)',
  });
  refusedJs(await probe().not('id', 'lt(any)', `{${list(101, String).join(',')}}`), TOO_LONG('lt(any)', 'id=not.lt(any).{...}', 101));
  const filters = (n: number) => list(n, (i) => `id=neq.${i + 10}`).join('&');
  assert.equal((await rest(`bound_probe?select=id&${filters(100)}&order=id`)).body, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  const tooMany: Refusal = { code: 'TS108', message: 'Too many conditions', details: 'the request has 101 conditions; at most 100', hint: 'Split the request, or filter with in.(...)' };
  await refusedRaw(`bound_probe?select=id&${filters(101)}`, tooMany);
  // Trees of 50 each are within their own bound, and still count towards the request's.
  const tree = (n: number, from: number) => `or=(${list(n, (i) => `id.eq.${i + from}`).join(',')})`;
  await refusedRaw(`bound_probe?select=id&${tree(50, 0)}&${tree(50, 50)}&id=gt.0`, tooMany);
  assert.equal((await rest(`bound_probe?select=id&${tree(50, 0)}&${tree(50, 1)}&order=id`)).body, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  // An embedded resource's conditions count too.
  await refusedRaw(`bound_probe?select=id,bound_child(id)&${filters(51)}&${list(50, (i) => `bound_child.id=neq.${i + 10}`).join('&')}`, tooMany);
});

test('select: 50 items a list, 10 JSON steps a field; a large column one row at a time', async () => {
  const items = (n: number) => list(n, (i) => `c${i}:id`).join(',');
  const { data } = await alice.client.from('bound_probe').select(items(50)).eq('id', 2);
  assert.equal(Object.keys((data as unknown as Record<string, number>[])[0]!).length, 50);
  refusedJs(await alice.client.from('bound_probe').select(items(51)), {
    code: 'TS109',
    message: 'Select list too long',
    details: 'the select of bound_probe lists 51 items; at most 50',
    hint: 'Select each column once, or use *',
  });
  assert.equal((await alice.client.from('bound_probe').select('b:doc->a->>b').eq('id', 3)).data, [{ b: '3' }]);
  const steps = (n: number) => `doc${'->a'.repeat(n - 1)}->>b`;
  const path: Refusal = { code: 'TS110', message: 'JSON path too long', details: 'doc is followed by 11 JSON steps; at most 10', hint: 'Read the JSON value and walk it in the client' };
  refusedJs(await alice.client.from('bound_probe').select(`v:${steps(11)}`), path);
  assert.equal((await alice.client.from('bound_probe').select(`v:${steps(10)}`).eq('id', 1)).data, [{ v: null }]);
  refusedJs(await alice.client.from('bound_probe').select('id').eq(steps(11), '1'), path);
  assert.equal(ids((await probe().eq('doc->a->>b', '2')).data), [2]);
  refusedJs(await alice.client.from('game_voice_messages').select('a:audio_data.max()'), {
    code: 'TS106',
    message: 'Large column read in bulk: game_voice_messages.audio_data',
    details: 'An aggregate of audio_data reads every matching row: it needs eq on id',
    hint: 'Aggregate the other columns, or read each large value by its key',
  });
  assert.equal((await alice.client.from('game_voice_messages').select('n:x.count()')).data, [{ n: 1 }]);
});

test('order: 10 terms, on an index for tables, never on a large column; limit is free, offset 100,000', async () => {
  assert.equal(ids((await probe().order('id', { ascending: false })).data), [3, 2, 1]);
  const order: Refusal = { code: 'TS111', message: 'Order too long', details: 'order on bound_probe has 11 terms; at most 10', hint: 'Order by the columns of one index' };
  await refusedRaw(`bound_probe?select=id&order=${list(11, () => 'id').join(',')}`, order);
  await refusedRaw(`rpc/bound_rows?select=id&order=${list(11, () => 'name').join(',')}`, order);
  // A function's rows are sorted without an index (in "und-x-icu", 'a' < 'B' < 'Z').
  assert.equal((await rest(`rpc/bound_rows?select=id&order=${list(10, () => 'name.desc').join(',')}`)).body, [{ id: 3 }, { id: 2 }, { id: 1 }]);
  await refusedRaw('bound_probe?select=id&order=name', {
    code: 'TS105',
    message: 'Sort without an index on bound_probe',
    details: 'order=name.asc is not the leading columns of an index; indexed orders: id',
    hint: 'Order by indexed columns, all ascending or all descending',
  });
  refusedJs(await clips().order('audio_data', { ascending: false }), {
    code: 'TS105',
    message: 'Sort on a large column: game_voice_messages.audio_data',
    details: 'order=audio_data.desc compares values of up to 1000000 characters',
    hint: 'Order by another column',
  });
  assert.equal(ids((await probe().order('id').limit(1_000_000_000)).data), [1, 2, 3]);
  assert.equal(ids((await probe().order('id').range(1, 1)).data), [2]);
  refusedJs(await probe().order('id').range(100_001, 100_002), {
    code: 'TS104',
    message: 'Offset too large',
    details: 'offset 100001; at most 100000',
    hint: 'Page by filtering on the ordered column (for example x=gt.<last x>) instead of an offset',
  });
});

test('embedded resources: 3 levels, 10 in all; their filters and orders under the same bounds', async () => {
  const children = (n: number) => list(n, (i) => `c${i}:bound_child(id)`).join(',');
  const { data } = await alice.client.from('bound_probe').select(`id,${children(10)}`).eq('id', 2);
  const expected: Record<string, unknown> = { id: 2 };
  for (let i = 0; i < 10; i++) expected[`c${i}`] = [{ id: 3 }];
  assert.equal(data, [expected]);
  refusedJs(await alice.client.from('bound_probe').select(`id,${children(11)}`), {
    code: 'TS107',
    message: 'Too many embedded resources',
    details: 'the select nests 1 levels with 11 resources in one level; at most 3 levels and 10 resources',
    hint: 'Read the related rows in a separate request',
  });
  const nested = (n: number) => list(n, (i) => `c${i}:bound_child(id,p0:bound_probe(id),p1:bound_probe(id))`).join(',');
  refusedJs(await alice.client.from('bound_probe').select(`id,${nested(4)}`), {
    code: 'TS107',
    message: 'Too many embedded resources',
    details: 'the select embeds 12 resources in all; at most 10',
    hint: 'Read the related rows in a separate request',
  });
  assert.equal((await alice.client.from('bound_probe').select(`id,${nested(3)}`).eq('id', 2)).data, [
    { id: 2, c0: [{ id: 3, p0: { id: 2 }, p1: { id: 2 } }], c1: [{ id: 3, p0: { id: 2 }, p1: { id: 2 } }], c2: [{ id: 3, p0: { id: 2 }, p1: { id: 2 } }] },
  ]);
  assert.equal((await rest('bound_probe?select=id,bound_child(id)&id=eq.1&bound_child.order=id.desc')).body, [{ id: 1, bound_child: [{ id: 2 }, { id: 1 }] }]);
  await refusedRaw(`bound_probe?select=id,bound_child(id)&bound_child.order=${list(11, () => 'id').join(',')}`, {
    code: 'TS111', message: 'Order too long', details: 'order on bound_child has 11 terms; at most 10', hint: 'Order by the columns of one index',
  });
  await refusedRaw(`bound_probe?select=id,bound_child(id)&bound_child.id=lt(any).{${list(101, String).join(',')}}`, TOO_LONG('lt(any)', 'id=lt(any).{...}', 101));
});

test('columns and on_conflict: 100 names', async () => {
  const row = { id: 10, name: 'q', tags: [], span: '[1,2)', doc: {} };
  const inserted = await alice.client.from('bound_probe').insert([row]).select('id');
  assert.equal([inserted.status, inserted.data], [201, [{ id: 10 }]]);
  const upserted = await alice.client.from('bound_probe').upsert({ ...row, name: 'r' }, { onConflict: 'id' }).select('name');
  assert.equal([upserted.status, upserted.data], [200, [{ name: 'r' }]]);
  const body = JSON.stringify([{ ...row, id: 11 }]);
  await refusedRaw(`bound_probe?columns=${list(101, () => 'id').join(',')}`, TOO_LONG('columns', 'columns=...', 101), { method: 'POST', body });
  await refusedRaw(`bound_probe?on_conflict=${list(101, () => 'id').join(',')}`, TOO_LONG('on_conflict', 'on_conflict=...', 101), {
    method: 'POST', body, headers: { prefer: 'resolution=merge-duplicates' },
  });
});

test('the URL is at most 16 KB and a body 2 MB: every list and tree fits inside them', async () => {
  const long = await rest(`bound_probe?select=id&name=neq.${'a'.repeat(17_000)}`);
  assert.is(long.status, 431);
  assert.equal((await rest(`bound_probe?select=id&name=neq.${'a'.repeat(15_000)}&order=id`)).body, [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 10 }]);
  const big = await rest('bound_probe', { method: 'POST', body: JSON.stringify({ id: 12, name: 'x'.repeat(2 * 1024 * 1024) }) });
  assert.equal(big, { status: 413, body: { code: 'PGRST413', message: 'Payload Too Large', details: 'Request bodies are limited to 2097152 bytes', hint: null } });
});

test('one caller has 4 requests served at once and 64 waiting; the next is 429 TS112 while others are served', async () => {
  // The operator holds the lock that bound_wait() waits for: alice's first four stay running.
  const operator = await connectAsOperator(server);
  await operator.query('select pg_advisory_lock(7071)');
  const token = (await alice.client.auth.getSession()).data.session!.access_token;
  let answered = 0;
  const wait = () => fetch(`${server.url}/rest/v1/rpc/bound_wait`, { method: 'POST', headers: { apikey: server.anonKey, authorization: `Bearer ${token}` } })
    .then(async (response) => ({ status: response.status, body: (await response.json()) as unknown }))
    .finally(() => answered++);
  const flood = Array.from({ length: 100 }, wait);
  await waitFor(() => answered >= 32, { timeout: 10_000, message: 'the refusals beyond the queue' });
  // Others are served meanwhile, and nothing of alice's has been.
  const bob = await signInPlayer(server);
  assert.equal((await bob.client.from('bound_probe').select('id').eq('id', 1)).data, [{ id: 1 }]);
  assert.is(answered, 32);
  await operator.query('select pg_advisory_unlock(7071)');
  await operator.end();
  const answers = await Promise.all(flood);
  assert.equal(answers.filter((a) => a.status === 200).map((a) => a.body), Array.from({ length: 68 }, () => 1));
  const refused = answers.filter((a) => a.status !== 200);
  assert.is(refused.length, 32);
  for (const answer of refused) {
    assert.equal(answer, {
      status: 429,
      body: {
        code: 'TS112',
        message: 'Too many requests in flight',
        details: '4 requests of this caller are running and 64 waiting',
        hint: 'Wait for answers before sending more requests',
      },
    });
  }
  // Once her requests are answered, she is served again.
  assert.equal((await alice.client.rpc('bound_wait')).data, 1);
});

test.run();
