/**
 * Every player write has a rate (docs/rules.md, "Rates"): the rates table against the
 * database's privileges, then each write rated by 20250801000100_every_write_rated.sql, the
 * hostile client refused past its burst (429 TS429 with Retry-After) beside the game's own
 * cadence passing.
 */
import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NetEvent } from '../../../../components/network.js';
import { REFUSALS } from '../../../../protocol/refusals.js';
import { connectAsOperator } from '../../../support/server.js';
import { createTestWallet, removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { startHeadlessPlayer } from '../../../support/headless-player.js';
import { accessToken } from '../../../support/live.js';
import { createRules, enterAtSpawn, nameOf, type Rules } from '../../../support/rules.js';
import { sleep, waitFor } from '../../../support/wait.js';

let server: TestServer;
let reader: TestPlayer;
let operator: TestPlayer;
let refused: Rules['refused'];
let walkTo: Rules['walkTo'];
let hit: Rules['hit'];

test.before(async () => {
  const operatorWallet = createTestWallet();
  server = await startTestServer(undefined, { OPERATOR_WALLETS: operatorWallet.address });
  [reader, operator] = await Promise.all([signInPlayer(server), signInPlayer(server, operatorWallet)]);
  ({ refused, walkTo, hit } = createRules(reader));
});

test.after(async () => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

/**
 * What `anon` or `authenticated` may write: tables of the schema REST serves they may insert
 * into, update or delete from (and realtime.messages, written by broadcasts), and the functions
 * there they may call that are not read-only (stable or immutable).
 */
const WRITABLE_SQL = `
  with players(role) as (values ('anon'), ('authenticated')),
       writes(privilege) as (values ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE'))
  select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'f')
    and exists (select 1 from players, writes where has_table_privilege(players.role, c.oid, writes.privilege))
  union
  select 'realtime.messages' from players, writes where has_table_privilege(players.role, 'realtime.messages', writes.privilege)
  union
  select p.proname::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = 'public' and p.provolatile = 'v'
    and exists (select 1 from players where has_function_privilege(players.role, p.oid, 'EXECUTE'))
  order by 1`;

/** The names in the first column of the rates table of docs/rules.md. */
async function documentedWrites(): Promise<string[]> {
  const rules = await readFile('docs/rules.md', 'utf8');
  const section = rules.slice(rules.indexOf('## Rates (per wallet)'));
  const table = section.slice(0, section.indexOf('\n## '));
  const names = new Set<string>();
  for (const line of table.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const cell = line.split('|')[1]!;
    for (const match of cell.matchAll(/`([^`]+)`/g)) names.add(match[1]!);
  }
  return [...names].sort();
}

test('the rates table of docs/rules.md lists exactly what players may write', async () => {
  const db = await connectAsOperator(server);
  try {
    const writable = (await db.query<{ name: string }>(WRITABLE_SQL)).rows.map((row) => row.name).sort();
    assert.equal(await documentedWrites(), writable);
    assert.ok(writable.includes('game_players') && writable.includes('rollback_edits'), writable.join(', '));
  } finally {
    await db.end();
  }
});

/** A presence heartbeat upsert by `p` at (x, y) over plain REST, as a hostile client sends it. */
async function rawBeat(p: TestPlayer, token: string, x: number, y: number): Promise<Response> {
  return fetch(`${server.url}/rest/v1/game_players?on_conflict=player_id`, {
    method: 'POST',
    headers: {
      apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json',
      prefer: 'resolution=merge-duplicates,return=minimal',
    },
    body: JSON.stringify({ player_id: p.address, player_name: nameOf(p), x, y }),
  });
}

test('presence: 50 heartbeats at once, the burst of 10 and the refill pass, the rest are 429 TS429 with Retry-After', async () => {
  const flooder = await signInPlayer(server);
  const token = await accessToken(flooder);
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: 50 }, () => rawBeat(flooder, token, 0, 0)));
  const seconds = (performance.now() - started) / 1000;
  const accepted = answers.filter((answer) => answer.status === 201).length;
  const refusals = answers.filter((answer) => answer.status !== 201);
  // The burst, and at most what 6 a second refilled while the flood lasted.
  assert.ok(accepted >= 10 && accepted <= 10 + Math.floor(6 * seconds), `${accepted} accepted in ${seconds.toFixed(2)} s`);
  for (const answer of refusals) {
    assert.is(answer.status, 429);
    assert.is(answer.headers.get('retry-after'), '1');
    assert.equal(await answer.json(), {
      code: 'TS429', message: 'Too many presence heartbeats: slow down',
      details: 'Limit: a burst of 10, then 6 per second.', hint: REFUSALS.rate,
    });
  }
  await sleep(1000 * Number(refusals.at(-1)!.headers.get('retry-after'))); // kept: the refill is tested
  assert.is((await rawBeat(flooder, token, 0, 0)).status, 201, 'after the refill');
});

test("presence: the game's heartbeats in combat for 10 s, leaving and joining again under a new name, are never refused", async () => {
  const player = await signInPlayer(server);
  const failures: unknown[][] = [];
  const logError = console.error;
  console.error = (...args: unknown[]) => {
    if (/^(presence heartbeat failed|leaving failed)/.test(String(args[0]))) failures.push(args);
    else logError(...args);
  };
  try {
    let recorded = 0;
    const onEvent = (event: NetEvent) => {
      if (event.kind === 'recorded') recorded++;
    };
    // Stops every other 500 ms (an extra heartbeat each second) while in combat: every 250 ms.
    let steps = 0;
    const headless = await startHeadlessPlayer(server, player, {
      name: 'Fighter', pose: { x: 0, y: 0, facing: 0, moving: false }, inCombat: () => true, onEvent,
      onStep: () => void (headless.pose.moving = Math.floor(++steps / 31) % 2 === 0),
    });
    const failed = () => `heartbeat failures: ${JSON.stringify(failures)}`;
    await waitFor(() => recorded > 0, { timeout: 15_000, message: () => `the first heartbeat (${failed()})` });
    const from = recorded;
    await sleep(10_000); // kept: the rate is counted over 10 s
    const beats = recorded - from;
    assert.ok(beats >= 36, `${beats} heartbeats recorded in 10 s`);
    await headless.session.close();
    const again = await startHeadlessPlayer(server, player, { name: 'Renamed', pose: { x: 0, y: 0, facing: 0, moving: false }, onEvent });
    await waitFor(async () => (await reader.client.from('game_players').select('player_name').eq('player_id', player.address)).data?.[0]?.player_name === 'Renamed', { timeout: 15_000, message: () => `rejoined as Renamed (${failed()})` });
    await again.session.close();
  } finally {
    console.error = logError;
  }
  assert.equal(failures, []);
});

/** Victims standing around (130, 0), all within reach of an attacker there and outside spawn. */
const VICTIM_SPOTS = [[100, -30], [100, 0], [100, 30], [130, -30], [130, 30], [160, -30], [160, 0]] as const;

test('hits: 7 in one request are 429 TS429; the game lands one every 300 ms on different victims', async () => {
  const attacker = await signInPlayer(server);
  const victims = await Promise.all(VICTIM_SPOTS.map(() => signInPlayer(server)));
  await Promise.all([walkTo(attacker, 130, 0), ...victims.map((v, i) => walkTo(v, VICTIM_SPOTS[i]![0], VICTIM_SPOTS[i]![1]))]);
  const insert = (targets: TestPlayer[]) => attacker.client.from('game_combat_logs').insert(targets.map((v) => hit(attacker, v)));
  await refused('7 hits in one request', 'game_combat_logs', () => insert(victims), 'TS429', 429, /^Too many hits: slow down$/);
  for (const victim of victims) {
    assert.is((await insert([victim])).error, null);
    await sleep(300); // kept: the game's pace, within the rate
  }
});

test('stats: the upsert after each hit passes at the game pace; a flood is 429 TS429 past 6 and the refill', async () => {
  const player = await signInPlayer(server);
  const victim = await signInPlayer(server);
  await Promise.all([walkTo(player, 130, 60), walkTo(victim, 100, 60)]);
  assert.is((await player.client.from('game_combat_logs').insert(hit(player, victim))).error, null);
  const upsert = () => player.client.from('game_player_stats').upsert({ player_id: player.address, player_name: nameOf(player), damage_dealt: 25 }, { onConflict: 'player_id' });
  for (let i = 0; i < 4; i++) {
    assert.is((await upsert()).error, null, 'one upsert every 300 ms');
    await sleep(300); // kept: the game's pace, within the rate
  }
  await sleep(1500); // kept: the bucket refills before the flood
  const started = performance.now();
  const flood = await Promise.all(Array.from({ length: 20 }, upsert));
  const seconds = (performance.now() - started) / 1000;
  const accepted = flood.filter((result) => result.error === null).length;
  assert.ok(accepted >= 6 && accepted <= 6 + Math.floor(4 * seconds), `${accepted} accepted in ${seconds.toFixed(2)} s`);
  for (const result of flood.filter((r) => r.error !== null)) {
    assert.equal({ status: result.status, code: result.error!.code, message: result.error!.message }, { status: 429, code: 'TS429', message: 'Too many stats: slow down' });
  }
});

test('mutes: 21 in one request are 429 TS429, 20 pass; unmuting takes tokens too', async () => {
  const player = await signInPlayer(server);
  const mutes = Array.from({ length: 21 }, () => ({ player_id: player.address, muted_id: createTestWallet().address }));
  const flood = await player.client.from('game_mutes').insert(mutes);
  assert.equal({ status: flood.status, code: flood.error?.code, message: flood.error?.message }, { status: 429, code: 'TS429', message: 'Too many mutes: slow down' });
  assert.equal((await player.client.from('game_mutes').select('muted_id')).data, [], 'nothing muted');
  assert.is((await player.client.from('game_mutes').insert(mutes.slice(0, 20))).error, null);
  const unmuteAll = await player.client.from('game_mutes').delete().eq('player_id', player.address);
  assert.equal({ status: unmuteAll.status, code: unmuteAll.error?.code }, { status: 429, code: 'TS429' });
  assert.is((await player.client.from('game_mutes').select('muted_id')).data!.length, 20);
  await sleep(1000); // kept: the refill is tested
  assert.is((await player.client.from('game_mutes').delete().eq('muted_id', mutes[0]!.muted_id)).error, null, 'one unmute a second');
});

test('chat and voice: deleting takes a token from the bucket that sent them', async () => {
  const player = await signInPlayer(server);
  await enterAtSpawn(player);
  const chat = await player.client.from('game_chat_messages').insert(Array.from({ length: 5 }, (_, i) => ({ player_id: player.address, player_name: nameOf(player), message: `m${i}` })));
  assert.is(chat.error, null);
  await refused('deleting 5 chat lines at once', 'game_chat_messages', () => player.client.from('game_chat_messages').delete().eq('player_id', player.address), 'TS429', 429, /^Too many chat messages: slow down$/);
  const voice = await player.client.from('game_voice_messages').insert(Array.from({ length: 3 }, () => ({ player_id: player.address, player_name: nameOf(player), audio_data: 'AAAA', x: 0, y: 0 })));
  assert.is(voice.error, null);
  const erased = await player.client.from('game_voice_messages').delete().eq('player_id', player.address);
  assert.equal({ status: erased.status, code: erased.error?.code, message: erased.error?.message }, { status: 429, code: 'TS429', message: 'Too many voice clips: slow down' });
  await sleep(2000); // kept: the refill is tested
  assert.is((await player.client.from('game_chat_messages').delete().eq('player_id', player.address).eq('message', 'm0')).error, null, 'one line after the refill');
});

test("claims: removing 19 trusts at once is 429 TS429; abandoning the claim takes one token, its trusts none", async () => {
  const owner = await signInPlayer(server);
  await enterAtSpawn(owner);
  const made = await owner.client.from('game_claims').insert({ owner_id: owner.address, owner_name: 'x', x1: 5, y1: -2, x2: 9, y2: 2 }).select('id').single();
  assert.is(made.error, null, JSON.stringify(made.error));
  const members = Array.from({ length: 19 }, () => ({ claim_id: made.data!.id, player_id: createTestWallet().address }));
  assert.is((await owner.client.from('game_claim_members').insert(members)).error, null, 'one claim and 19 trusts: the burst of 20');
  await refused('removing 19 trusts', 'game_claim_members', () => owner.client.from('game_claim_members').delete().eq('claim_id', made.data!.id), 'TS429', 429, /^Too many claim changes: slow down$/);
  await sleep(2000); // kept: the refill is tested
  assert.is((await owner.client.from('game_claims').delete().eq('id', made.data!.id)).error, null);
  assert.equal((await reader.client.from('game_claim_members').select('player_id').eq('claim_id', made.data!.id)).data, []);
});

test("operators: 40 tile inspections at once pass 30 and the refill, the rest are 429 TS429; other players' refusals are unchanged", async () => {
  const started = performance.now();
  const calls = await Promise.all(Array.from({ length: 40 }, (_, i) => operator.client.rpc('tile_history', { x: i, y: 0 })));
  const seconds = (performance.now() - started) / 1000;
  const accepted = calls.filter((call) => call.error === null).length;
  assert.ok(accepted >= 30 && accepted <= 30 + Math.floor(seconds), `${accepted} accepted in ${seconds.toFixed(2)} s`);
  for (const call of calls.filter((c) => c.error !== null)) {
    assert.equal({ status: call.status, code: call.error!.code, message: call.error!.message }, { status: 429, code: 'TS429', message: 'Too many operator actions: slow down' });
  }
  const player = await signInPlayer(server);
  const notOperator = await player.client.rpc('tile_history', { x: 0, y: 0 });
  assert.equal({ status: notOperator.status, code: notOperator.error?.code, message: notOperator.error?.message }, { status: 403, code: '42501', message: 'only operators may inspect tiles' });
});

test.run();
