/**
 * The hostile client: real supabase-js sessions try every refusal of the authority rules. Each
 * refusal is checked for its code (and HTTP status) and for leaving the table exactly as it was.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { createRules, nameOf, type Rules, type WriteResult } from '../../../support/rules.js';
import { sleep } from '../../../support/wait.js';

let server: TestServer;
/** Reads tables for the before/after comparisons; never writes. */
let reader: TestPlayer;
let attacker: TestPlayer;
let victim: TestPlayer;
let far: TestPlayer;
let guard: TestPlayer;

let snapshot: Rules['snapshot'];
let refused: Rules['refused'];
let beat: Rules['beat'];
let walkTo: Rules['walkTo'];
let attack: Rules['attack'];
let hit: Rules['hit'];
const presenceRow = (p: TestPlayer, x: number, y: number) => ({ player_id: p.address, player_name: nameOf(p), x, y });

test.before(async () => {
  server = await startTestServer();
  [reader, attacker, victim, far, guard] = await Promise.all(Array.from({ length: 5 }, () => signInPlayer(server)));
  ({ snapshot, refused, beat, walkTo, hit, attack } = createRules(reader));
  await Promise.all([walkTo(attacker, 100, 0), walkTo(victim, 100, 30), walkTo(far, 460, 0), walkTo(guard, 60, 30)]);
});

test.after(async () => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

test('combat: only your own wallet attacks, never yourself, only a 25-damage sword', async () => {
  await refused('attack as another wallet', 'game_combat_logs', () => attack(attacker, victim, { attacker_id: victim.address }), '42501', 403);
  await refused('attack yourself', 'game_combat_logs', () => attack(attacker, attacker, { victim_id: attacker.address }), '23514', 400);
  await refused('damage 50', 'game_combat_logs', () => attack(attacker, victim, { damage: 50 }), '23514', 400);
  await refused('damage 0', 'game_combat_logs', () => attack(attacker, victim, { damage: 0 }), '23514');
  await refused('an axe', 'game_combat_logs', () => attack(attacker, victim, { weapon_type: 'axe' }), '23514');
});

test('combat: both players present, outside spawn, within range', async () => {
  const [ghost, gone] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await refused('attacker without presence', 'game_combat_logs', () => attack(ghost, victim), '23514', 400);
  await refused('victim without presence', 'game_combat_logs', () => attack(attacker, ghost), '23514');
  await walkTo(gone, 100, 60);
  assert.is((await gone.client.from('game_players').delete().eq('player_id', gone.address)).error, null);
  await refused('victim who left', 'game_combat_logs', () => attack(attacker, gone), '23514');
  await beat(guard, 60, 30);
  await refused('attack into spawn', 'game_combat_logs', () => attack(attacker, guard), '23514');
  await refused('attack from spawn', 'game_combat_logs', () => attack(guard, victim), '23514');
  await Promise.all([beat(attacker, 100, 0), beat(far, 460, 0)]);
  await refused('out of range (360 px)', 'game_combat_logs', () => attack(attacker, far), '23514');
});

test('combat: a valid hit is logged at the victim tile with server time; a second within 1000 ms is refused', async () => {
  await Promise.all([beat(attacker, 100, 0), beat(victim, 100, 30)]);
  const logged = await attack(attacker, victim, { x: 77, y: 77, created_at: '2000-01-01T00:00:00Z' }).select('x, y, created_at');
  assert.is(logged.error, null);
  assert.equal({ x: logged.data![0]!.x, y: logged.data![0]!.y }, { x: 3, y: 0 });
  assert.ok(Math.abs(Date.parse(logged.data![0]!.created_at as string) - Date.now()) < 60_000);
  await refused('second hit within 1000 ms', 'game_combat_logs', () => attack(attacker, victim), '23514');
  const before = await snapshot('game_combat_logs');
  const erased = await attacker.client.from('game_combat_logs').delete().eq('attacker_id', attacker.address).select();
  assert.equal({ status: erased.status, code: erased.error?.code, message: erased.error?.message },
    { status: 403, code: '42501', message: 'permission denied for table game_combat_logs' }, 'nobody erases the combat log');
  assert.equal(await snapshot('game_combat_logs'), before);
});

test('stats follow the combat log', async () => {
  const logged = (await reader.client.from('game_combat_logs').select('damage').eq('attacker_id', attacker.address)).data!;
  const total = logged.reduce((sum, row) => sum + (row.damage as number), 0);
  assert.ok(total >= 25);
  const stats = (damage: number, player = attacker) =>
    attacker.client.from('game_player_stats').upsert({ player_id: player.address, player_name: 'Hostile', damage_dealt: damage }, { onConflict: 'player_id' });
  assert.is((await stats(total)).error, null);
  await refused('stats beyond the log', 'game_player_stats', () => stats(total + 25), '23514', 400);
  await refused('stats for another wallet', 'game_player_stats', () => stats(0, victim), '42501', 403);
  await refused('stats for a wallet with no log', 'game_player_stats', () => victim.client.from('game_player_stats').insert({ player_id: victim.address, player_name: 'V', damage_dealt: 25 }), '23514');
});

test('presence: bounds, appearance, and server time (health and level: test/server/game/combat/earned.test.ts)', async () => {
  const bad: [string, Record<string, unknown>][] = [
    ['unknown appearance key', { appearance: { wings: 'yes' } }],
    ['bad colour', { appearance: { skinColor: 'red' } }], ['short colour', { appearance: { hairColor: '#FFF' } }],
    ['bad style', { appearance: { hairStyle: 'mohawk' } }], ['style not a string', { appearance: { shirtStyle: ['tank'] } }],
    ['appearance not an object', { appearance: ['#FFFFFF'] }],
  ];
  for (const [label, extra] of bad) {
    await refused(label, 'game_players', () => beat(victim, 100, 30, extra), '23514', 400);
  }
  await refused('outside the world', 'game_players', () => beat(victim, 100, 30, { x: 170_000 }), '23514');
  await refused("another wallet's row", 'game_players', () => attacker.client.from('game_players').upsert(presenceRow(victim, 100, 30), { onConflict: 'player_id' }), '42501', 403);
  const forged = await beat(victim, 100, 30, { last_seen: '2099-01-01T00:00:00Z', updated_at: '2000-01-01T00:00:00Z' }).then(() =>
    reader.client.from('game_players').select('last_seen, updated_at').eq('player_id', victim.address).single());
  for (const stamp of Object.values(forged.data!)) assert.ok(Math.abs(Date.parse(stamp as string) - Date.now()) < 60_000, String(stamp));
});

test('presence: no teleports, not by heartbeat spam, not by leaving and rejoining elsewhere', async () => {
  const runner = await signInPlayer(server);
  await refused('first presence outside spawn', 'game_players', () => beat(runner, 500, 500), '23514');
  await walkTo(runner, 100, -60);
  await refused('a 2000 px jump', 'game_players', () => beat(runner, 2100, -60), '23514', 400);
  // Many small steps in quick succession add up: the slack is a budget, not a gift per heartbeat.
  let refusedStep = null;
  // 16 steps of 90 px (1440 px) in quick succession are beyond the 771 px the budget carries over.
  for (let i = 1; i <= 16 && !refusedStep; i++) {
    const { error } = await beat(runner, 100 + 90 * i, -60);
    refusedStep = error?.code ?? null;
  }
  assert.is(refusedStep, '23514');
  // Kept: the quick steps spent the presence rate's burst; a second refills 6 heartbeats.
  await sleep(1000);
  assert.is((await runner.client.from('game_players').delete().eq('player_id', runner.address)).error, null);
  await refused('rejoin far away', 'game_players', () => beat(runner, 3000, -60), '23514');
  assert.is((await beat(runner, 0, 0)).error, null, 'rejoining at spawn is how every session starts');
});

test('presence: a heartbeat that arrives late, then one on time, passes for an honest walker; a teleport still fails', async () => {
  const walker = await signInPlayer(server);
  // Walks east along y = -60 at 187.5 px/s, the client's speed: where it stands `ms` after it set off.
  const at = (ms: number) => Math.round(100 + 0.1875 * ms);
  await walkTo(walker, 100, -60);
  // Kept: the heartbeats' timing is what is tested.
  const start = Date.now();
  for (let ms = 500; ms <= 1500; ms += 500) {
    await sleep(start + ms - Date.now());
    assert.is((await beat(walker, at(ms), -60)).error, null);
  }
  // The heartbeat sent at 2000 ms is held up on the way and arrives 2.38 s late, at 4380 ms; the
  // next, sent at 5800 ms, arrives on time: 1.42 s after the late one, 713 px from it.
  await sleep(start + 4380 - Date.now());
  assert.is((await beat(walker, at(2000), -60)).error, null, 'the late heartbeat');
  await sleep(start + 5800 - Date.now());
  assert.equal(at(5800) - at(2000), 713);
  const onTime = await beat(walker, at(5800), -60);
  assert.is(onTime.error, null, `the heartbeat after the late one: ${JSON.stringify(onTime.error)}`);
  // At most 771 px of budget carry over from one row to the next: a 1000 px hop at once is a teleport.
  await refused('a 1000 px hop at once', 'game_players', () => beat(walker, at(5800) + 1000, -60), '23514', 400);
  const hop = await beat(walker, at(5800) + 1000, -60);
  assert.match(hop.error?.message ?? '', /^implausible movement: 1000 px in \d+(\.\d+)? s$/);
  await refused('a teleport across the map', 'game_players', () => beat(walker, 9000, -60), '23514', 400);
});

test('presence: only a defeated player respawns at spawn', async () => {
  // 1100 px from spawn: farther than the 771 px of budget a player carries, so the way back is a teleport.
  const [wounded, duelist] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await Promise.all([walkTo(wounded, 1100, 0), walkTo(duelist, 1070, 0)]);
  await refused('teleport to spawn while alive', 'game_players', () => beat(wounded, 0, 0), '23514');
  // The server's health, not the client's: a heartbeat claiming 25 HP is not one hit from defeat.
  await Promise.all([beat(wounded, 1100, 0, { health: 25 }), beat(duelist, 1070, 0)]);
  for (let hits = 0; hits < 4; hits++) {
    if (hits > 0) await sleep(1000); // kept: one hit per 1000 ms counts
    await beat(wounded, 1100, 0);
    assert.is((await attack(duelist, wounded)).error, null);
    if (hits < 3) await refused('teleport to spawn while wounded', 'game_players', () => beat(wounded, 0, 0), '23514');
  }
  assert.is((await beat(wounded, 0, 0)).error, null, 'defeated: back to spawn');
});

test('player names are trimmed, non-empty and at most 20 characters everywhere', async () => {
  const names = ['', ' ', ' lead', 'trail ', '\u3000wide', '\u00a0nbsp', 'two\nlines', 'N'.repeat(21)];
  const writer = await signInPlayer(server);
  const me = writer.address;
  const writes: [string, (name: string) => PromiseLike<WriteResult>][] = [
    ['game_chat_messages', (name) => writer.client.from('game_chat_messages').insert({ player_id: me, player_name: name, message: 'hi' })],
    ['game_blocks', (name) => writer.client.from('game_blocks').insert({ x: 5, y: 5, block_type: 'stone', player_id: me, player_name: name })],
    ['game_voice_messages', (name) => writer.client.from('game_voice_messages').insert({ player_id: me, player_name: name, audio_data: 'AAAA', x: 1, y: 1 })],
    ['game_players', (name) => writer.client.from('game_players').upsert({ ...presenceRow(writer, 0, 0), player_name: name }, { onConflict: 'player_id' })],
    ['game_player_stats', (name) => writer.client.from('game_player_stats').upsert({ player_id: me, player_name: name, damage_dealt: 0 }, { onConflict: 'player_id' })],
    ['game_combat_logs', (name) => attacker.client.from('game_combat_logs').insert({ ...hit(attacker, victim), attacker_name: name })],
  ];
  // A hit the combat rules allow, so that only the name can refuse it.
  await Promise.all([beat(attacker, 100, 0), beat(victim, 100, 30), beat(writer, 0, 0)]);
  for (const [table, write] of writes) {
    for (const name of names) await refused(`${table} ${JSON.stringify(name)}`, table, () => write(name), '23514', 400, /_name"|^Names cannot contain control characters\.$/);
  }
  assert.is((await writes[0]![1]('N'.repeat(20))).error, null);
  assert.is((await writes[3]![1]('Ünïcødé Name')).error, null);
});

test('voice clips: base64 only, at most 1,000,000 characters', async () => {
  const speaker = await signInPlayer(server);
  await beat(speaker, 0, 0);
  const clip = (audio: string) => speaker.client.from('game_voice_messages').insert({ player_id: speaker.address, player_name: 'Voice', audio_data: audio, x: 1, y: 1 });
  await refused('1,000,004 characters', 'game_voice_messages', () => clip('A'.repeat(1_000_004)), '23514', 400);
  await refused('not base64', 'game_voice_messages', () => clip('<script>alert(1)</script>'), '23514');
  await refused('bad padding', 'game_voice_messages', () => clip('AAA'), '23514');
  assert.is((await clip('A'.repeat(1_000_000))).error, null);
});

test('blocks keep server time and stay inside the world', async () => {
  const builder = await signInPlayer(server);
  await beat(builder, 0, 0);
  const row = { x: 8, y: -8, block_type: 'stone', player_id: builder.address, player_name: 'Builder', created_at: '2000-01-01T00:00:00Z' };
  const placed = await builder.client.from('game_blocks').insert(row).select('created_at').single();
  const stamp = placed.data!.created_at as string;
  assert.ok(Math.abs(Date.parse(stamp) - Date.now()) < 60_000);
  const changed = await builder.client.from('game_blocks').update({ created_at: '2099-01-01T00:00:00Z' }).eq('x', 8).eq('y', -8).select('created_at').single();
  assert.is(changed.data!.created_at, stamp);
  await refused('outside the world', 'game_blocks', () => builder.client.from('game_blocks').insert({ ...row, x: 5000 }), '23514');
});

test('rates: a burst, then 429 TS429 with Retry-After; other wallets are unaffected', async () => {
  const [flooder, bystander] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await Promise.all([beat(flooder, 0, 0), beat(bystander, 0, 0)]);
  // Rows of 25 tiles (x -12..12) below spawn, all inside the flooder's view.
  const blocks = (n: number, y: number) =>
    Array.from({ length: n }, (_, i) => ({ x: -12 + (i % 25), y: y + Math.floor(i / 25), block_type: 'dirt', player_id: flooder.address, player_name: 'Flood' }));
  await refused('41 blocks in one request', 'game_blocks', () => flooder.client.from('game_blocks').insert(blocks(41, 3)), 'TS429', 429);
  // That refusal spent no token: the request's own rows were rolled back with it.
  assert.is((await flooder.client.from('game_blocks').insert(blocks(40, 3))).error, null);
  const token = (await flooder.client.auth.getSession()).data.session!.access_token;
  const res = await fetch(`${server.url}/rest/v1/game_blocks`, {
    method: 'POST',
    headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(blocks(8, 5)),
  });
  assert.is(res.status, 429);
  assert.ok(Number(res.headers.get('retry-after')) >= 1);
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(body.code, 'TS429');
  assert.match(body.message as string, /slow down/);
  // Hammering on does not shut the flooder out: the refill (8 per second) still gets through.
  const started = Date.now();
  let placed = 0;
  while (Date.now() - started < 600) {
    if (!(await flooder.client.from('game_blocks').insert({ ...blocks(1, 6)[0], x: -12 + placed })).error) placed++;
  }
  const allowed = 1 + (8 * (Date.now() - started)) / 1000;
  assert.ok(placed >= 1 && placed <= allowed + 1, `${placed} placed, refill allows ${allowed}`);
  const other = await bystander.client.from('game_blocks').insert({ x: -12, y: 8, block_type: 'gold', player_id: bystander.address, player_name: 'Calm' });
  assert.is(other.error, null);

  const chat = (n: number) => flooder.client.from('game_chat_messages').insert(Array.from({ length: n }, (_, i) => ({ player_id: flooder.address, player_name: 'Flood', message: `m${i}` })));
  await refused('6 chat messages at once', 'game_chat_messages', () => chat(6), 'TS429', 429);
  assert.is((await chat(5)).error, null);
  await refused('a sixth chat message', 'game_chat_messages', () => chat(1), 'TS429', 429);
  const voice = (n: number) => flooder.client.from('game_voice_messages').insert(Array.from({ length: n }, () => ({ player_id: flooder.address, player_name: 'Flood', audio_data: 'AAAA', x: 0, y: 0 })));
  await refused('4 voice clips at once', 'game_voice_messages', () => voice(4), 'TS429', 429);
  assert.is((await bystander.client.from('game_chat_messages').insert({ player_id: bystander.address, player_name: 'Calm', message: 'fine' })).error, null);
});

test.run();
