import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyDamage, heal, spawnLocalPlayer, spawnRemotePlayer, spawnSimulatedPlayer, startSwing } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';
import { xOf, yOf } from '../../../components/transform.js';

const AWAY = 20 * 32;

function duel(dx: number, dy = 0, x = AWAY) {
  const w = createGameWorld();
  const a = spawnSimulatedPlayer(w, { id: 'a', name: 'A', x, y: x });
  const b = spawnSimulatedPlayer(w, { id: 'b', name: 'B', x: x + dx, y: x + dy });
  step(w);
  return { w, a, b };
}

test('a swing hits at exactly 64 px and misses at 65 px', () => {
  const hit = duel(64);
  startSwing(hit.w, hit.a);
  step(hit.w);
  assert.is(hit.w.vitals.health[hit.b], 75);
  const miss = duel(65);
  startSwing(miss.w, miss.a);
  step(miss.w);
  assert.is(miss.w.vitals.health[miss.b], 100);
  const diagonal = duel(45, 46);
  startSwing(diagonal.w, diagonal.a);
  step(diagonal.w);
  assert.is(diagonal.w.vitals.health[diagonal.b], 100);
});

test('the nearest player is the one hit', () => {
  const w = createGameWorld();
  const a = spawnSimulatedPlayer(w, { id: 'a', name: 'A', x: AWAY, y: AWAY });
  const far = spawnSimulatedPlayer(w, { id: 'far', name: 'F', x: AWAY - 50, y: AWAY });
  const near = spawnSimulatedPlayer(w, { id: 'near', name: 'N', x: AWAY + 30, y: AWAY + 10 });
  step(w);
  startSwing(w, a);
  step(w);
  assert.is(w.vitals.health[near], 75);
  assert.is(w.vitals.health[far], 100);
  assert.is(w.vitals.health[a], 100);
});

test('a victim takes at most one hit per 1000 ms', () => {
  const { w, a, b } = duel(10);
  const swingAndStep = () => {
    startSwing(w, a);
    step(w);
    while (w.combat.swinging[a]) step(w);
  };
  swingAndStep();
  assert.is(w.vitals.health[b], 75);
  swingAndStep();
  assert.is(w.vitals.health[b], 75);
  while (w.time - w.combat.lastDamage[b]! < 1000) step(w);
  swingAndStep();
  assert.is(w.vitals.health[b], 50);
});

test('health floors at 0 and healing caps at max', () => {
  const w = createGameWorld();
  const p = spawnSimulatedPlayer(w, { id: 'p', name: 'P', health: 10, x: AWAY, y: AWAY });
  assert.is(applyDamage(w, p, 25), true);
  assert.is(w.vitals.health[p], 0);
  const q = spawnSimulatedPlayer(w, { id: 'q', name: 'Q', health: 90, x: AWAY, y: AWAY });
  heal(w, q, 25);
  assert.is(w.vitals.health[q], 100);
  heal(w, p, 30);
  assert.is(w.vitals.health[p], 30);
});

test('no hit when the attacker or the victim is in the safe zone', () => {
  const inside = duel(40, 0, 0);
  startSwing(inside.w, inside.a);
  step(inside.w);
  assert.is(inside.w.combat.safe[inside.a], 1);
  assert.is(inside.w.vitals.health[inside.b], 100);

  const w = createGameWorld();
  const a = spawnSimulatedPlayer(w, { id: 'a', name: 'A', x: 96, y: 0 });
  const b = spawnSimulatedPlayer(w, { id: 'b', name: 'B', x: 60, y: 0 });
  step(w);
  startSwing(w, a);
  step(w);
  assert.is(w.combat.safe[a], 0);
  assert.is(w.vitals.health[b], 100);
});

test('four hits defeat; the player respawns at spawn with full health after 3 s', () => {
  const { w, a, b } = duel(10);
  for (let hits = 0; hits < 4; hits++) {
    startSwing(w, a);
    step(w);
    for (let i = 0; i < 63; i++) step(w);
  }
  assert.is(w.vitals.health[b], 0);
  assert.is(w.vitals.defeated[b], 1);
  startSwing(w, b);
  assert.is(w.combat.swinging[b], 0);
  const respawnAt = w.vitals.respawnAt[b]!;
  while (w.time < respawnAt - 16) step(w);
  assert.is(w.vitals.defeated[b], 1);
  step(w);
  assert.is(w.vitals.defeated[b], 0);
  assert.is(w.vitals.health[b], 100);
  assert.is(xOf(w.transform, b), 0);
  assert.is(yOf(w.transform, b), 0);
});

test('the local player hitting a remote player queues one attack for the server', () => {
  const w = createGameWorld();
  const me = spawnLocalPlayer(w, { id: 'me', name: 'Me', x: AWAY, y: AWAY });
  spawnRemotePlayer(w, { id: 'them', name: 'Them', x: AWAY + 20, y: AWAY + 40 });
  w.queues.inbox.push({ kind: 'playerUpsert', id: 'them', name: 'Them', x: AWAY + 20, y: AWAY + 40, health: 100, maxHealth: 100, level: 1, appearance: { skinColor: '#FFDBAC', hairColor: '#000000', hairStyle: 'bald', shirtColor: '#FF0000', shirtStyle: 'tank', pantsColor: '#000000', shoeColor: '#000000' }, isSwinging: false });
  step(w);
  w.input.swing = true;
  step(w);
  assert.equal(w.queues.outbox, [{ kind: 'attack', victimId: 'them', victimName: 'Them', damage: 25, victimTileX: 20, victimTileY: 21, attackerX: 640, attackerY: 640 }]);
  assert.is(w.combat.swinging[me], 1);
});

test.run();
