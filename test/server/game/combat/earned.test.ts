/**
 * Health and level are the server's: health follows the combat log and the respawn rule, level
 * is earned from stored blocks and hits, and whatever a heartbeat claims for either is replaced.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { createRules, nameOf } from '../../../support/rules.js';
import { sleep } from '../../../support/wait.js';

let server: TestServer;
let rules: ReturnType<typeof createRules>;
let attacker: TestPlayer;
let victim: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  const reader = await signInPlayer(server);
  rules = createRules(reader);
  [attacker, victim] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await Promise.all([rules.walkTo(attacker, 100, 0), rules.walkTo(victim, 100, 30)]);
});

test.after(async () => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

test('health follows the combat log: a heartbeat claiming more keeps the server value', async () => {
  const { beat, attack } = rules;
  assert.is((await beat(victim, 100, 30)).data!.health, 100, 'honest: full health before any hit');
  assert.is((await attack(attacker, victim)).error, null);
  const claimed = await beat(victim, 100, 30, { health: 100 });
  assert.is(claimed.error, null);
  assert.is(claimed.data!.health, 75, 'a claimed 100 after a 25-damage hit is stored as 75');
  assert.is((await beat(victim, 100, 30, { health: 75 })).data!.health, 75, 'honest: the client mirror agrees');
  assert.is((await beat(victim, 100, 30, { health: 10, max_health: 500 })).data!.max_health, 100);
});

test('a defeated player has 0 health until it respawns at spawn with 100', async () => {
  const { beat, attack } = rules;
  for (let hit = 0; hit < 3; hit++) {
    await sleep(1000); // kept: one hit per 1000 ms counts toward health
    await Promise.all([beat(attacker, 100, 0), beat(victim, 100, 30)]);
    assert.is((await attack(attacker, victim)).error, null);
  }
  assert.is((await beat(victim, 100, 30, { health: 100 })).data!.health, 0);
  const respawned = await beat(victim, 0, 0, { health: 0 });
  assert.is(respawned.error, null);
  assert.is(respawned.data!.health, 100, 'respawning at spawn restores full health');
});

test('level is earned from placed blocks and landed hits; a sent level is never stored', async () => {
  const { beat } = rules;
  const builder = await signInPlayer(server);
  const forged = await beat(builder, 0, 0, { level: 2147483647 });
  assert.is(forged.error, null);
  assert.is(forged.data!.level, 1, 'a claimed level is replaced by the earned one');
  const place = (n: number, y: number) =>
    builder.client.from('game_blocks').insert(Array.from({ length: n }, (_, i) => ({ x: -12 + i, y, block_type: 'stone', player_id: builder.address, player_name: nameOf(builder) })));
  assert.is((await place(9, 6)).error, null);
  assert.is((await beat(builder, 0, 0, { level: 2 })).data!.level, 1, '9 blocks: 9 experience, still level 1');
  assert.is((await place(1, 7)).error, null);
  assert.is((await beat(builder, 0, 0)).data!.level, 2, '10 blocks: level 2');
  // The attacker landed 4 hits: 20 experience, level 2; 40 are needed for level 3.
  assert.is((await beat(attacker, 100, 0, { level: 3 })).data!.level, 2);
});

test('two players hitting each other while both heartbeat never deadlock', async () => {
  const { beat, attack } = rules;
  const [left, right] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await Promise.all([rules.walkTo(left, 200, 0), rules.walkTo(right, 200, 30)]);
  const codes = new Set<string>();
  for (let round = 0; round < 8; round++) {
    const results = await Promise.all([attack(left, right), attack(right, left), beat(left, 200, 0), beat(right, 200, 30)]);
    for (const { error } of results) if (error) codes.add(error.code);
  }
  assert.not.ok(codes.has('40P01'), 'no deadlock between hits and heartbeats');
  for (const code of codes) assert.is(code, '23514', 'only game rules (the cooldown) refuse');
});

test.run();
