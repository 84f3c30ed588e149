import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PLAYER_SPEED, TILE_SIZE } from '../../../components/constants.js';
import { readPlayer, spawnSimulatedPlayer, startSwing } from '../../../components/players.js';
import { createRandom } from '../../../components/prng.js';
import { setVelocity } from '../../../components/transform.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';

/** What a seeded crowd looks like after its run: a hash of every position, zone and health, and counts. */
interface Outcome {
  positions: number;
  /** Players whose tile is in the spawn area. */
  safe: number;
  /** Players the zone store (what combat reads) marks safe. */
  markedSafe: number;
  hits: number;
  health: number;
  defeated: number;
}

/** FNV-1a over the bits of a float32 (positions are float32 in the stores). */
const bits = new DataView(new ArrayBuffer(4));
function mix(hash: number, value: number): number {
  bits.setFloat32(0, value);
  return Math.imul(hash ^ bits.getUint32(0), 16777619) >>> 0;
}

/**
 * `n` players packed around spawn (about one per 2x2 tiles, so swings land and some players walk
 * through the safe zone), 80 % walking in one of 8 directions; each step 2 % of them swing.
 * Runs `steps` steps and reads every player back through `readPlayer`.
 */
function runCrowd(n: number, steps: number): Outcome {
  const w = createGameWorld({ capacity: n, seed: 11 });
  const random = createRandom(42);
  const side = Math.sqrt(n) * 2 * TILE_SIZE;
  const eids: number[] = [];
  for (let i = 0; i < n; i++) {
    const eid = spawnSimulatedPlayer(w, { id: `p${i}`, x: (random() - 0.5) * side, y: (random() - 0.5) * side });
    eids.push(eid);
    if (random() < 0.8) {
      const dx = Math.floor(random() * 3) - 1;
      const dy = dx === 0 ? (random() < 0.5 ? -1 : 1) : Math.floor(random() * 3) - 1;
      const speed = dx !== 0 && dy !== 0 ? PLAYER_SPEED * Math.SQRT1_2 : PLAYER_SPEED;
      setVelocity(w.transform, eid, dx * speed, dy * speed);
    }
  }
  const swings = Math.max(1, Math.round(n * 0.02));
  let hits = 0;
  for (let s = 0; s < steps; s++) {
    for (let k = 0; k < swings; k++) startSwing(w, eids[Math.floor(random() * n)]!);
    step(w);
    for (const eid of eids) if (w.combat.lastDamage[eid] === w.time) hits++;
  }
  const outcome: Outcome = { positions: 2166136261, safe: 0, markedSafe: 0, hits, health: 0, defeated: 0 };
  for (const eid of eids) {
    const p = readPlayer(w, eid);
    outcome.positions = mix(mix(outcome.positions, p.x), p.y);
    if (p.zone === 'safe') outcome.safe++;
    outcome.markedSafe += w.combat.safe[eid]!;
    outcome.health += p.health;
    if (p.defeated) outcome.defeated++;
  }
  return outcome;
}

// 250 steps (4 s of world time) take players through defeat and the 3 s respawn.
test('10 seeded players end with the same positions, zones, hits and health', () => {
  assert.equal(runCrowd(10, 250), { positions: 908880202, safe: 2, markedSafe: 2, hits: 10, health: 750, defeated: 0 });
});

test('100k seeded players end with the same positions, zones, hits and health', () => {
  assert.equal(runCrowd(100_000, 250), { positions: 3780649123, safe: 11, markedSafe: 11, hits: 204309, health: 4892275, defeated: 1720 });
});

test.run();
