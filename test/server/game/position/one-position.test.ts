/**
 * One position per player for every rule: a hit moves its attacker to the position it carries,
 * and the victim's counter-hit, the attacker's voice clips and blocks are judged on that same
 * position. Both players of a fight get the same verdict.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { createRules, nameOf, type Rules, type WriteResult } from '../../../support/rules.js';
import { sleep } from '../../../support/wait.js';

let server: TestServer;
let rules: Rules;

test.before(async () => {
  server = await startTestServer();
  rules = createRules(await signInPlayer(server));
});

test.after(async () => {
  await server.stop();
});

/** A write's outcome: `ok` or `status code message`. */
const outcome = ({ error, status }: WriteResult) => (error ? `${status} ${error.code} ${error.message}` : 'ok');
const SAFE_ZONE = '400 23514 no combat in the safe zone';

/** Two players who walked to `a` and `b` (pixels, y 0). */
async function twoPlayersAt(a: number, b: number): Promise<[TestPlayer, TestPlayer]> {
  const [one, two] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await Promise.all([rules.walkTo(one, a, 0), rules.walkTo(two, b, 0)]);
  return [one, two];
}

test('a hit from outside spawn by a player whose heartbeats stay on a spawn tile: its victim may hit back', async () => {
  // Pixel 80 lies on spawn tile 2; pixel 100 on tile 3, just outside. The victim stands at 140.
  const [attacker, victim] = await twoPlayersAt(80, 140);
  for (let round = 0; round < 2; round++) {
    assert.is((await rules.beat(attacker, 80, 0)).error, null, 'the heartbeat stays on the spawn tile');
    assert.is(outcome(await rules.attack(victim, attacker)), SAFE_ZONE, `round ${round}: the attacker stands in spawn`);
    assert.is(outcome(await rules.attack(attacker, victim)), SAFE_ZONE, `round ${round}: and may not hit from there either`);
    assert.is(outcome(await rules.attack(attacker, victim, { attacker_x: 100 })), 'ok', `round ${round}: a hit from just outside`);
    assert.is(outcome(await rules.attack(victim, attacker)), 'ok', `round ${round}: the counter-hit reaches the attacker where its hit put it`);
    await sleep(1000); // kept: one hit per 1000 ms counts
  }
});

test("after a hit the attacker's voice clips and blocks are judged where the hit put it", async () => {
  // The heartbeat says pixel 80 (tile 2); the hit is sent from pixel 300 (tile 9), 40 px from the victim.
  const [attacker, victim] = await twoPlayersAt(80, 340);
  assert.is(outcome(await rules.attack(attacker, victim, { attacker_x: 300 })), 'ok');
  const clip = await attacker.client.from('game_voice_messages')
    .insert({ player_id: attacker.address, player_name: nameOf(attacker), audio_data: 'AAAA', x: 0, y: 0 }).select('x, y').single();
  assert.equal(clip.data, { x: 9, y: 0 }, 'the clip is heard on tile 9, not on the heartbeat\'s tile 2');
  // The view from pixel 300 reaches 700 px (tile 21), 220 px further than the view from pixel 80.
  const block = (x: number) => attacker.client.from('game_blocks').insert({ x, y: 0, block_type: 'brick', player_id: attacker.address, player_name: nameOf(attacker) });
  assert.is(outcome(await block(21)), 'ok', 'a block at the edge of the view from where the hit put it');
  assert.is(outcome(await block(30)), '400 23514 block 30,0 is out of reach: players build only within their 800x600 view');
});

test('honest: two players outside spawn hit each other both ways', async () => {
  const [one, two] = await twoPlayersAt(300, 340);
  for (let round = 0; round < 2; round++) {
    assert.is(outcome(await rules.attack(one, two)), 'ok', `round ${round}: one hits two`);
    assert.is(outcome(await rules.attack(two, one)), 'ok', `round ${round}: two hits one`);
    await sleep(1000); // kept: one hit per 1000 ms counts
  }
});

test.run();
