/**
 * PostgREST 6/7 behaviours through the real supabase-js client (raw HTTP where supabase-js
 * cannot express the request), each compared with PostgREST's documented answer, on the
 * game's own tables and functions, and on a few probe tables, functions and a second schema
 * that the database operator creates before the server starts (exposed with PGRST_DB_SCHEMAS).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDataDir, startTestServerAfter, type TestPlayer, type TestServer } from '../../support/harness.js';
import { playerAtSpawn } from '../../support/rules.js';

let server: TestServer;
let alice: TestPlayer;

const BLOCKS = [
  { x: 3, y: 4, block_type: 'stone' },
  { x: 4, y: 4, block_type: 'wood' },
  { x: 5, y: 5, block_type: 'gold' },
  { x: 6, y: 6, block_type: 'brick' },
];

/** Teams, their members and one badge; computed columns and relationships; a scalar and a writing function; schema `probe`. */
const PROBES = `
  create table public.probe_teams (id int primary key, name text not null);
  create table public.probe_members (id int primary key, team_id int not null references public.probe_teams, name text not null, score int not null);
  create table public.probe_badges (member_id int primary key references public.probe_members, label text not null);
  insert into public.probe_teams values (1, 'red'), (2, 'blue');
  insert into public.probe_members values (1, 1, 'ann', 5), (2, 1, 'bob', 7), (3, 2, 'cy', 3);
  insert into public.probe_badges values (1, 'gold');
  create function public.probe_shout(public.probe_members) returns text language sql stable as $$ select upper($1.name) $$;
  create function public.probe_ranked(public.probe_teams) returns setof public.probe_members language sql stable
    as $$ select * from public.probe_members where team_id = $1.id order by score desc $$;
  create function public.probe_best(public.probe_teams) returns setof public.probe_members rows 1 language sql stable
    as $$ select * from public.probe_members where team_id = $1.id order by score desc limit 1 $$;
  create function public.probe_answer() returns int language sql stable as 'select 42';
  create function public.probe_touch() returns setof public.probe_members language sql
    as $$ update public.probe_members set score = score returning * $$;
  grant select on public.probe_teams, public.probe_members, public.probe_badges to authenticated;
  grant update on public.probe_members to authenticated;
  create schema probe;
  create table probe.notes (id int primary key, body text not null);
  insert into probe.notes values (1, 'in probe');
  grant usage on schema probe to authenticated;
  grant select on probe.notes to authenticated;`;

test.before(async () => {
  server = await startTestServerAfter(PROBES, { PGRST_DB_SCHEMAS: 'public,probe' });
  alice = await playerAtSpawn(server, 'Alice');
  const { error } = await alice.client.from('game_blocks').insert(BLOCKS.map((b) => ({ ...b, player_id: alice.address, player_name: 'Alice' })));
  assert.is(error, null);
});

test.after(async () => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

/** A raw REST request as `alice`. */
async function rest(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const token = (await alice.client.auth.getSession()).data.session!.access_token;
  const response = await fetch(`${server.url}/rest/v1/${path}`, {
    method: init.method ?? 'GET',
    headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // CSV and other text bodies stay text.
  }
  return { status: response.status, body, headers: response.headers };
}

const blocks = () => alice.client.from('game_blocks').select('x,y');

test('or with a nested and: x=3 or (x>4 and y<6)', async () => {
  const { data, error } = await blocks().or('x.eq.3,and(x.gt.4,y.lt.6)').order('x');
  assert.is(error, null);
  assert.equal(data, [{ x: 3, y: 4 }, { x: 5, y: 5 }]);
});

test('not.or and an and parameter combine with the other filters', async () => {
  const notOr = await rest('game_blocks?select=x&not.or=(x.eq.3,x.eq.4)&order=x');
  assert.equal(notOr.body, [{ x: 5 }, { x: 6 }]);
  const and = await rest('game_blocks?select=x&and=(y.gte.4,y.lte.5,x.not.eq.4)&order=x');
  assert.equal(and.body, [{ x: 3 }, { x: 5 }]);
});

test('operators: in, is, like with *, match, any/all modifiers, isdistinct', async () => {
  assert.equal((await blocks().in('block_type', ['gold', 'wood']).order('x')).data, [{ x: 4, y: 4 }, { x: 5, y: 5 }]);
  assert.equal((await blocks().like('block_type', '*o*').order('x')).data, [{ x: 3, y: 4 }, { x: 4, y: 4 }, { x: 5, y: 5 }]);
  assert.equal((await blocks().match({ x: 6 }).select('block_type')).data, [{ block_type: 'brick' }]);
  assert.equal((await rest('game_blocks?select=x&block_type=match.^b&order=x')).body, [{ x: 6 }]);
  assert.equal((await blocks().likeAnyOf('block_type', ['st*', 'br*']).order('x')).data, [{ x: 3, y: 4 }, { x: 6, y: 6 }]);
  assert.equal((await rest('game_blocks?select=x&block_type=like(all).{*o*,*d}&order=x')).body, [{ x: 4 }, { x: 5 }]);
  assert.equal((await rest('game_blocks?select=x&x=eq(any).{3,6}&order=x')).body, [{ x: 3 }, { x: 6 }]);
  assert.equal((await rest('game_blocks?select=x&player_name=is.null')).body, []);
  assert.equal((await rest('game_blocks?select=x&x=isdistinct.3&order=x')).body, [{ x: 4 }, { x: 5 }, { x: 6 }]);
});

test('select renames, casts and JSON paths; order with nullslast', async () => {
  const { data } = await alice.client.from('game_blocks').select('column:x::text,y').eq('x', 3);
  assert.equal(data, [{ column: '3', y: 4 }]);
  const desc = await rest('game_blocks?select=x&order=x.desc.nullslast&limit=2');
  assert.equal(desc.body, [{ x: 6 }, { x: 5 }]);
});

test('Prefer count=exact on insert, update and delete returns the count of changed rows', async () => {
  const row = { x: 7, y: 7, block_type: 'dirt', player_id: alice.address, player_name: 'Alice' };
  const inserted = await alice.client.from('game_blocks').insert(row, { count: 'exact' });
  assert.equal([inserted.error, inserted.status, inserted.count], [null, 201, 1]);
  const updated = await alice.client.from('game_blocks').update({ block_type: 'sand' }, { count: 'exact' }).eq('x', 7);
  assert.equal([updated.error, updated.status, updated.count], [null, 204, 1]);
  const deleted = await alice.client.from('game_blocks').delete({ count: 'exact' }).eq('x', 7);
  assert.equal([deleted.error, deleted.status, deleted.count], [null, 204, 1]);
});

test('Prefer tx=rollback answers with the inserted row and keeps nothing', async () => {
  const row = { x: 8, y: 7, block_type: 'dirt', player_id: alice.address, player_name: 'Alice' };
  const answer = await rest('game_blocks?select=x,block_type', { method: 'POST', headers: { prefer: 'return=representation,tx=rollback' }, body: row });
  assert.equal([answer.status, answer.body], [201, [{ x: 8, block_type: 'dirt' }]]);
  assert.equal((await blocks().eq('x', 8)).data, []);
});

test('Prefer missing=default gives the column default to a key a row leaves out', async () => {
  // In a bulk insert the columns are the union of the rows' keys: the second row leaves out `id`.
  const id = '00000000-0000-4000-8000-000000000017';
  const rows = [
    { id, player_id: alice.address, player_name: 'Alice', message: 'first' },
    { player_id: alice.address, player_name: 'Alice', message: 'second' },
  ];
  const withoutPreference = await alice.client.from('game_chat_messages').insert(rows);
  assert.is(withoutPreference.error?.code, '23502', 'by default a left-out key is null, and id is not null');
  const { data, error } = await alice.client.from('game_chat_messages').insert(rows, { defaultToNull: false }).select('id, message');
  assert.is(error, null);
  const second = data!.find((row) => row.message === 'second')!;
  assert.is(data!.find((row) => row.message === 'first')!.id, id);
  assert.match(second.id as string, /^[0-9a-f]{8}-[0-9a-f]{4}-/, 'the second row got the column default, a new uuid');
  assert.is.not(second.id, id);
});

test('Prefer handling=strict refuses an unknown preference (PGRST122) and max-affected overruns (PGRST124)', async () => {
  const unknown = await rest('game_blocks?x=eq.3', { method: 'DELETE', headers: { prefer: 'handling=strict,colour=blue' } });
  assert.equal([unknown.status, unknown.body], [400, {
    code: 'PGRST122', message: 'Invalid preferences given with handling=strict', details: 'Invalid preferences: colour=blue', hint: null,
  }]);
  const over = await rest('game_blocks?x=gte.3&x=lte.6', { method: 'PATCH', headers: { prefer: 'handling=strict,max-affected=1' }, body: { block_type: 'iron' } });
  assert.equal([over.status, over.body], [400, {
    code: 'PGRST124', message: 'Query result exceeds max-affected preference constraint', details: 'The query affects 4 rows', hint: null,
  }]);
  assert.equal((await blocks().eq('block_type', 'iron')).data, [], 'the refused update was rolled back');
});

test('single() over several rows is 406 PGRST116', async () => {
  const { error, status } = await blocks().single();
  assert.is(status, 406);
  assert.equal(error, { code: 'PGRST116', message: 'Cannot coerce the result to a single JSON object', details: 'The result contains 4 rows', hint: null });
});

test('Range and Content-Range: a page of an exact count is 206 with its range', async () => {
  const page = await rest('game_blocks?select=x&order=x&offset=1&limit=2', { headers: { prefer: 'count=exact' } });
  assert.equal([page.status, page.headers.get('content-range'), page.body], [206, '1-2/4', [{ x: 4 }, { x: 5 }]]);
});

test('CSV: Accept text/csv answers a header line and one line per row', async () => {
  const { data } = await alice.client.from('game_blocks').select('x,block_type').lte('x', 4).order('x').csv();
  assert.is(data, 'x,block_type\n3,stone\n4,wood');
});

test('RPC: POST and GET call a function by its named arguments', async () => {
  const post = await alice.client.rpc('earned_level', { blocks_placed: 0, hits_landed: 0 });
  assert.equal([post.error, post.status, typeof post.data], [null, 200, 'number']);
  const get = await alice.client.rpc('earned_level', { blocks_placed: 0, hits_landed: 0 }, { get: true });
  assert.equal([get.error, get.data], [null, post.data]);
});

test('RPC: an unknown function or argument set is 404 PGRST202', async () => {
  const { error, status } = await alice.client.rpc('no_such_function', { a: 1 });
  assert.is(status, 404);
  assert.equal(error, {
    code: 'PGRST202',
    message: 'Could not find the function public.no_such_function(a) in the schema cache',
    details: 'Searched for the function public.no_such_function with parameter a or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
    hint: null,
  });
});

test('an embedded resource without a foreign key is 400 PGRST200', async () => {
  const { error, status } = await alice.client.from('game_blocks').select('x,game_players(*)');
  assert.is(status, 400);
  assert.equal(error, {
    code: 'PGRST200',
    message: "Could not find a relationship between 'game_blocks' and 'game_players' in the schema cache",
    details: "Searched for a foreign key relationship between 'game_blocks' and 'game_players' in the schema 'public', but no matches were found.",
    hint: null,
  });
});

test('a filter on a resource that is not embedded is 400 PGRST108', async () => {
  const answer = await rest('game_blocks?select=x&game_players.x=eq.1');
  assert.equal([answer.status, answer.body], [400, {
    code: 'PGRST108',
    message: "'game_players' is not an embedded resource in this request",
    details: null,
    hint: "Verify that 'game_players' is included in the 'select' query parameter.",
  }]);
});

test('computed column: a function of the row is selected by name, renamed and cast, and left out of *', async () => {
  const { data, error } = await alice.client.from('probe_members').select('name, probe_shout, loud:probe_shout::varchar').order('id');
  assert.is(error, null);
  assert.equal(data, [{ name: 'ann', probe_shout: 'ANN', loud: 'ANN' }, { name: 'bob', probe_shout: 'BOB', loud: 'BOB' }, { name: 'cy', probe_shout: 'CY', loud: 'CY' }]);
  const star = await alice.client.from('probe_members').select('*').eq('id', 1);
  assert.equal(star.data, [{ id: 1, team_id: 1, name: 'ann', score: 5 }]);
  const other = await alice.client.from('probe_teams').select('probe_shout');
  assert.equal(other.error, { code: '42703', details: null, hint: null, message: 'column probe_teams.probe_shout does not exist' });
});

test('computed relationship: setof embeds as an array, ROWS 1 as an object; a function of another row is PGRST200', async () => {
  const { data, error } = await alice.client.from('probe_teams').select('name, probe_ranked(name), best:probe_best(name, probe_shout)').order('id');
  assert.is(error, null);
  assert.equal(data, [
    { name: 'red', probe_ranked: [{ name: 'bob' }, { name: 'ann' }], best: { name: 'bob', probe_shout: 'BOB' } },
    { name: 'blue', probe_ranked: [{ name: 'cy' }], best: { name: 'cy', probe_shout: 'CY' } },
  ]);
  const inner = await alice.client.from('probe_teams').select('name, probe_ranked!inner(name)').eq('probe_ranked.name', 'cy');
  assert.equal(inner.data, [{ name: 'blue', probe_ranked: [{ name: 'cy' }] }]);
  const wrong = await alice.client.from('probe_members').select('probe_ranked(*)');
  assert.equal(wrong.error, {
    code: 'PGRST200', hint: null,
    details: "Searched for a foreign key relationship between 'probe_members' and 'probe_ranked' in the schema 'public', but no matches were found.",
    message: "Could not find a relationship between 'probe_members' and 'probe_ranked' in the schema cache",
  });
});

test('aggregates: count(), col.sum/avg/min/max with an alias and a cast, grouped by the other columns', async () => {
  const grouped = await alice.client.from('probe_members').select('team_id, total:score.sum(), score.avg(), count(), top:score.max()::text');
  assert.is(grouped.error, null);
  assert.equal([...grouped.data!].sort((a, b) => a.team_id - b.team_id), [
    { team_id: 1, total: 12, avg: 6, count: 2, top: '7' },
    { team_id: 2, total: 3, avg: 3, count: 1, top: '3' },
  ]);
  assert.equal((await alice.client.from('probe_members').select('score.min()')).data, [{ min: 3 }]);
  const embedded = await alice.client.from('probe_teams').select('name, probe_members(count), members:probe_members(score.sum())').order('id');
  assert.equal(embedded.data, [
    { name: 'red', probe_members: [{ count: 2 }], members: [{ sum: 12 }] },
    { name: 'blue', probe_members: [{ count: 1 }], members: [{ sum: 3 }] },
  ]);
  const ownBlocks = await alice.client.from('game_blocks').select('count()').eq('player_id', alice.address);
  assert.equal(ownBlocks.data, [{ count: BLOCKS.length }]);
});

test('aggregates: an unknown column is 42703 (PostgREST names an embedded table <name>_1); a large column is TS106', async () => {
  const missing = await alice.client.from('probe_members').select('nope.sum()');
  assert.equal(missing.error, { code: '42703', details: null, hint: null, message: 'column probe_members.nope does not exist' });
  const embedded = await alice.client.from('probe_teams').select('name, probe_members(sum)');
  assert.equal(embedded.error, { code: '42703', details: null, hint: null, message: 'column probe_members_1.sum does not exist' });
  const control = await alice.client.from('game_voice_messages').select('id.count()');
  assert.equal(control.data, [{ count: 0 }]);
  const large = await alice.client.from('game_voice_messages').select('audio_data.max()').limit(1);
  assert.equal(large.error, {
    code: 'TS106',
    message: 'Large column read in bulk: game_voice_messages.audio_data',
    details: 'An aggregate of audio_data reads every matching row: it needs eq on id',
    hint: 'Aggregate the other columns, or read each large value by its key',
  });
});

test('spread: a to-one resource adds its columns to the parent, a to-many one arrays of them', async () => {
  const toOne = await alice.client.from('probe_members').select('name, ...probe_teams(team:name), ...probe_badges(label)').order('id');
  assert.is(toOne.error, null);
  assert.equal(toOne.data, [{ name: 'ann', team: 'red', label: 'gold' }, { name: 'bob', team: 'red', label: null }, { name: 'cy', team: 'blue', label: null }]);
  const toMany = await alice.client.from('probe_teams').select('id, ...probe_members(name, score)').order('id');
  assert.equal(toMany.data, [{ id: 1, name: ['ann', 'bob'], score: [5, 7] }, { id: 2, name: ['cy'], score: [3] }]);
  const grouped = await alice.client.from('probe_members').select('count(), ...probe_teams(name)');
  assert.equal([...grouped.data!].sort((a, b) => a.count - b.count), [{ count: 1, name: 'blue' }, { count: 2, name: 'red' }]);
});

test('stripNulls: nulls=stripped leaves out the keys whose value is null, for arrays and single objects', async () => {
  const { data } = await alice.client.from('probe_members').select('name, ...probe_badges(label)').order('id').stripNulls();
  assert.equal(data, [{ name: 'ann', label: 'gold' }, { name: 'bob' }, { name: 'cy' }]);
  const single = await alice.client.from('probe_members').select('name, ...probe_badges(label)').eq('id', 2).single().stripNulls();
  assert.equal(single.data, { name: 'bob' });
  const kept = await alice.client.from('probe_members').select('name, ...probe_badges(label)').eq('id', 2);
  assert.equal(kept.data, [{ name: 'bob', label: null }]);
});

test('schemas: Accept-Profile chooses an exposed schema; any other is 406 PGRST106 listing them', async () => {
  const { data, error } = await alice.client.schema('probe').from('notes').select('id, body');
  assert.is(error, null);
  assert.equal(data, [{ id: 1, body: 'in probe' }]);
  const unknown = await alice.client.schema('game_private').from('notes').select();
  assert.is(unknown.status, 406);
  assert.equal(unknown.error, { code: 'PGRST106', details: null, hint: null, message: 'The schema must be one of the following: public, probe' });
  const inPublic = await alice.client.from('notes').select();
  assert.equal(inPublic.error, { code: 'PGRST205', details: null, hint: null, message: "Could not find the table 'public.notes' in the schema cache" });
  const write = await rest('notes', { method: 'POST', headers: { 'content-profile': 'nope' }, body: { id: 2, body: 'x' } });
  assert.equal([write.status, (write.body as { code: string }).code], [406, 'PGRST106']);
});

test('RPC: count=exact of a scalar result is 1; max-affected with handling=strict bounds what a function returns', async () => {
  const answer = await alice.client.rpc('probe_answer', {}, { count: 'exact' });
  assert.equal([answer.data, answer.count], [42, 1]);
  const over = await rest('rpc/probe_touch', { method: 'POST', headers: { prefer: 'handling=strict,max-affected=2' }, body: {} });
  assert.equal([over.status, over.body], [400, { code: 'PGRST124', details: 'The query affects 3 rows', hint: null, message: 'Query result exceeds max-affected preference constraint' }]);
  const within = await rest('rpc/probe_touch?select=id', { method: 'POST', headers: { prefer: 'handling=strict,max-affected=3' }, body: {} });
  assert.equal([within.status, within.body], [200, [{ id: 1 }, { id: 2 }, { id: 3 }]]);
});

test.run();
