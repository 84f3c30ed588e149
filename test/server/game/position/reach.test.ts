/**
 * Position-bound writes: blocks only within the 800x600 view around a fresh presence row, voice
 * clips at the sender's own tile, hits judged on the position they carry; no presence, no action.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { createRules, nameOf } from '../../../support/rules.js';

let server: TestServer;
let rules: ReturnType<typeof createRules>;

test.before(async () => {
  server = await startTestServer();
  rules = createRules(await signInPlayer(server));
});

test.after(async () => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

const block = (p: TestPlayer, x: number, y: number) =>
  p.client.from('game_blocks').insert({ x, y, block_type: 'brick', player_id: p.address, player_name: nameOf(p) });
const unblock = (p: TestPlayer, x: number, y: number) => p.client.from('game_blocks').delete().eq('x', x).eq('y', y).select();

test('blocks are placed and removed only within the view around a fresh presence row', async () => {
  const { refused, beat, walkTo } = rules;
  const builder = await signInPlayer(server);
  await refused('building without presence', 'game_blocks', () => block(builder, 5, 5), '23514', 400, /no fresh presence/);
  await beat(builder, 0, 0);
  await refused('a block at tile (4000, 4000)', 'game_blocks', () => block(builder, 4000, 4000), '23514', 400, /out of reach/);
  await refused('a block 640 px to the right', 'game_blocks', () => block(builder, 20, 0), '23514', 400, /out of reach/);
  assert.is((await block(builder, 12, 9)).error, null, 'honest: the view reaches 400 px right and 300 px down');
  assert.is((await block(builder, -12, -9)).error, null, 'honest: and as far left and up');
  await walkTo(builder, 700, 0);
  await refused('removing a block left behind, 1,070 px away', 'game_blocks', () => unblock(builder, -12, -9), '23514', 400, /out of reach/);
  const removed = await unblock(builder, 12, 9);
  assert.is(removed.error, null);
  assert.is(removed.data!.length, 1, 'honest: removing a block in view');
});

test("a voice clip is stored at its sender's tile, whatever it claims", async () => {
  const { refused } = rules;
  const speaker = await signInPlayer(server);
  const clip = (x: number, y: number) =>
    speaker.client.from('game_voice_messages').insert({ player_id: speaker.address, player_name: nameOf(speaker), audio_data: 'AAAA', x, y }).select('x, y').single();
  await refused('speaking without presence', 'game_voice_messages', () => clip(3, 0), '23514', 400, /no fresh presence/);
  await rules.walkTo(speaker, 100, 30);
  const honest = await clip(3, 0);
  assert.is(honest.error, null, JSON.stringify(honest.error));
  assert.equal(honest.data, { x: 3, y: 0 }, 'honest: the tile under the sender');
  const far = await clip(4000, -4000);
  assert.is(far.error, null);
  assert.equal(far.data, { x: 3, y: 0 }, 'a clip sent from afar is heard where the sender stands');
});

test('a hit carries the attacker position: checked against its movement budget and 64 px + 250 ms', async () => {
  const { refused, beat, walkTo, attack } = rules;
  const [attacker, victim, distant, ghost] = await Promise.all(Array.from({ length: 4 }, () => signInPlayer(server)));
  await Promise.all([walkTo(attacker, 300, 0), walkTo(victim, 300, 60), walkTo(distant, 300, 125)]);
  await refused('fighting without presence', 'game_combat_logs', () => attack(ghost, victim), '23514', 400, /no fresh presence/);
  await refused('a hit without the attacker position', 'game_combat_logs', () => attack(attacker, victim, { attacker_x: null, attacker_y: null }), '23514');
  await beat(attacker, 300, 0);
  await refused('a hit from 1000 px further on than the last position', 'game_combat_logs', () => attack(attacker, victim, { attacker_x: 1300 }), '23514', 400, /implausible attacker position/);
  await refused('a victim 125 px away', 'game_combat_logs', () => attack(attacker, distant), '23514', 400, /out of range/);
  const logged = await attack(attacker, victim, { attacker_x: 305 }).select('attacker_x, attacker_y, x, y').single();
  assert.is(logged.error, null, 'honest: 60 px away, 5 px on from the last heartbeat');
  assert.equal(logged.data, { attacker_x: 305, attacker_y: 0, x: 9, y: 1 });
});

test.run();
