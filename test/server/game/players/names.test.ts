/**
 * Names and chat text: a held name is one wallet's (compared after NFKC and case folding) until
 * its holder has written no presence for 30 days, names
 * refuse control, direction and invisible characters and are stored NFKC, chat refuses control
 * and direction characters and loses invisible ones.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectAsOperator } from '../../../support/server.js';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { createRules } from '../../../support/rules.js';

let server: TestServer;
let rules: ReturnType<typeof createRules>;
let alice: TestPlayer;
let other: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  const reader = await signInPlayer(server);
  rules = createRules(reader);
  [alice, other] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
});

test.after(async () => {
  await server.stop();
});

const chat = (p: TestPlayer, name: string, message = 'hello') =>
  p.client.from('game_chat_messages').insert({ player_id: p.address, player_name: name, message }).select('player_name, message').single();

test('a held name is refused to another wallet, and so is its look-alike', async () => {
  const { refused, beat } = rules;
  assert.is((await beat(alice, 0, 0, { player_name: 'Alice' })).error, null);
  for (const name of ['Alice', 'ALICE', 'ＡＬＩＣＥ', 'alice']) {
    await refused(`presence as ${name}`, 'game_players', () => beat(other, 0, 0, { player_name: name }), '23505', 409, /taken by another player/);
    await refused(`chat as ${name}`, 'game_chat_messages', () => chat(other, name), '23505', 409);
  }
  assert.is((await beat(other, 0, 0, { player_name: 'Bob' })).error, null, 'honest: a free name');
  assert.is((await chat(other, 'Bob')).error, null);
  assert.is((await chat(alice, 'ALICE')).error, null, 'the holder may write its own name in any case');
  const held = await other.client.from('game_held_names').select('name_key, player_id').eq('name_key', 'alice').single();
  assert.equal(held.data, { name_key: 'alice', player_id: alice.address }, 'the landing can read who holds a name');
  // Taking another name frees the old one.
  assert.is((await beat(alice, 0, 0, { player_name: 'Alicia' })).error, null);
  assert.is((await beat(other, 0, 0, { player_name: 'Alice' })).error, null, 'a freed name can be taken');
});

test('a name whose holder wrote no presence for 30 days is free again', async () => {
  const { refused, beat } = rules;
  const [holder, newcomer] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  assert.is((await beat(holder, 0, 0, { player_name: 'Wanderer' })).error, null);
  const operator = await connectAsOperator(server);
  try {
    const age = (days: number) =>
      operator.query(`update public.game_held_names set held_at = now() - make_interval(days => $1) where player_id = $2`, [days, holder.address]);
    await age(29);
    await refused('a name held 29 days ago', 'game_players', () => beat(newcomer, 0, 0, { player_name: 'Wanderer' }), '23505', 409, /taken by another player/);
    await age(30);
    assert.is((await beat(newcomer, 0, 0, { player_name: 'Wanderer' })).error, null, 'free after 30 days without presence');
    const held = await newcomer.client.from('game_held_names').select('player_id').eq('name_key', 'wanderer').single();
    assert.is(held.data?.player_id, newcomer.address, 'the newcomer holds it now');
  } finally {
    await operator.end();
  }
});

test("a holder's heartbeats refresh its hold at most once an hour; a hold older than that is refreshed", async () => {
  const { beat } = rules;
  const holder = await signInPlayer(server);
  assert.is((await beat(holder, 0, 0, { player_name: 'Keeper' })).error, null);
  const operator = await connectAsOperator(server);
  try {
    const setAge = (minutes: number) =>
      operator.query(`update public.game_held_names set held_at = now() - make_interval(mins => $1) where player_id = $2`, [minutes, holder.address]);
    const ageInMinutes = async () =>
      Math.round((await operator.query<{ age: number }>(`select extract(epoch from now() - held_at) / 60 as age from public.game_held_names where player_id = $1`, [holder.address])).rows[0]!.age);
    await setAge(30);
    assert.is((await beat(holder, 0, 0, { player_name: 'Keeper' })).error, null);
    assert.is(await ageInMinutes(), 30, 'held within the hour: left as it is');
    await setAge(61);
    assert.is((await beat(holder, 0, 0, { player_name: 'Keeper' })).error, null);
    assert.is(await ageInMinutes(), 0, 'held longer ago: refreshed');
  } finally {
    await operator.end();
  }
});

const BAD_NAMES: Array<[string, string, string]> = [
  ['a control character', 'Bell\u0007', 'Names cannot contain control characters.'],
  ['C1 control U+0085', 'Next\u0085Line', 'Names cannot contain control characters.'],
  ['right-to-left override U+202E', 'evil\u202Egnp', 'Names cannot contain direction controls.'],
  ['isolate U+2066', 'a\u2066b', 'Names cannot contain direction controls.'],
  ['left-to-right mark U+200E', 'a\u200Eb', 'Names cannot contain direction controls.'],
  ['zero width space U+200B', 'Al\u200Bice', 'Names cannot contain invisible characters.'],
  ['word joiner U+2060', 'Al\u2060ice', 'Names cannot contain invisible characters.'],
  ['byte order mark U+FEFF inside', 'Al\uFEFFice', 'Names cannot contain invisible characters.'],
];

test('names refuse control, direction and invisible characters, in presence and in chat', async () => {
  const { refused, beat } = rules;
  const writer = await signInPlayer(server);
  for (const [label, name, message] of BAD_NAMES) {
    const exact = new RegExp(`^${message.replace(/\./g, '\\.')}$`);
    await refused(`presence: ${label}`, 'game_players', () => beat(writer, 0, 0, { player_name: name }), '23514', 400, exact);
    await refused(`chat: ${label}`, 'game_chat_messages', () => chat(writer, name), '23514', 400, exact);
  }
  const stored = await beat(writer, 0, 0, { player_name: 'Ｗｉｄｅ２' });
  assert.is(stored.error, null);
  assert.is(stored.data!.player_name, 'Wide2', 'honest: stored in NFKC form');
  assert.is((await chat(writer, 'ﬁne')).data!.player_name, 'fine');
});

test('chat refuses control and direction characters and strips invisible ones', async () => {
  const { refused } = rules;
  const writer = await signInPlayer(server);
  const name = 'Chatter';
  await refused('a bell in chat', 'game_chat_messages', () => chat(writer, name, 'ding\u0007'), '23514', 400, /^Messages cannot contain control characters\.$/);
  await refused('a line break in chat', 'game_chat_messages', () => chat(writer, name, 'two\nlines'), '23514', 400, /control characters/);
  await refused('U+202E in chat', 'game_chat_messages', () => chat(writer, name, 'gro.elgoog\u202E'), '23514', 400, /^Messages cannot contain direction controls\.$/);
  await refused('U+2069 in chat', 'game_chat_messages', () => chat(writer, name, 'a\u2069b'), '23514', 400, /direction controls/);
  await refused('only invisible characters', 'game_chat_messages', () => chat(writer, name, '\u200B\u200C'), '23514', 400);
  const stripped = await chat(writer, name, 'he\u200Bl\u200Dl\u2060o\uFEFF!');
  assert.is(stripped.error, null);
  assert.is(stripped.data!.message, 'hello!', 'invisible characters are removed');
  assert.is((await chat(writer, name, 'plain words')).data!.message, 'plain words', 'honest: clean text unchanged');
});

test.run();
