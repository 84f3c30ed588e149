import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_APPEARANCE } from '../../../components/appearance-types.js';
import type { Toast } from '../../../components/hud.js';
import { entityRef, findPlayer, resolveRef, spawnLocalPlayer, spawnRemotePlayer } from '../../../components/players.js';
import { blockAt, blockOwnerAt } from '../../../components/tiles.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';
import { MAX_EVENTS_PER_STEP, MAX_REMOTE_PLAYERS } from '../../../components/network.js';
import { xOf, yOf } from '../../../components/transform.js';

function setup() {
  const toasts: Toast[] = [];
  const w = createGameWorld({ hud: { set() {}, toast: (t) => toasts.push(t) } });
  const me = spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  return { w, me, toasts };
}

const upsert = (id: string, x: number, y: number, health = 100) => ({
  kind: 'playerUpsert' as const, id, name: `N-${id}`, x, y, health, maxHealth: 100, level: 2, appearance: { ...DEFAULT_APPEARANCE, hairStyle: 'curly' as const }, isSwinging: false,
});

test('blockSet and blockCleared edit the tile store, unknown types included', () => {
  const { w } = setup();
  w.queues.inbox.push({ kind: 'blockSet', x: -40, y: 17, blockType: 'diamond', owner: 'alice' });
  w.queues.inbox.push({ kind: 'blockSet', x: 41, y: -17, blockType: 'lava', owner: 'bob' });
  step(w);
  assert.is(blockAt(w.tiles, -40, 17), 'diamond');
  assert.is(blockOwnerAt(w.tiles, -40, 17), 'alice');
  assert.is(blockAt(w.tiles, 41, -17), 'lava');
  w.queues.inbox.push({ kind: 'blockCleared', x: -40, y: 17 });
  step(w);
  assert.is(blockAt(w.tiles, -40, 17), null);
  assert.is(w.queues.inbox.length, 0);
});

test('areaLoaded replaces the blocks of its area in one step and leaves the rest', () => {
  const { w } = setup();
  w.queues.inbox.push({ kind: 'blockSet', x: 10, y: 10, blockType: 'stone', owner: 'a' });
  w.queues.inbox.push({ kind: 'blockSet', x: 11, y: 12, blockType: 'gold', owner: 'a' });
  w.queues.inbox.push({ kind: 'blockSet', x: -300, y: 900, blockType: 'glass', owner: 'b' });
  step(w);
  w.queues.inbox.push({ kind: 'areaLoaded', x: 0, y: 0, width: 16, height: 16, blocks: [{ x: 10, y: 10, blockType: 'wood', owner: 'c' }] });
  step(w);
  assert.is(blockAt(w.tiles, 10, 10), 'wood');
  assert.is(blockOwnerAt(w.tiles, 10, 10), 'c');
  assert.is(blockAt(w.tiles, 11, 12), null, 'a block the read no longer has is gone');
  assert.is(blockAt(w.tiles, -300, 900), 'glass', 'other chunks are untouched');
  assert.is(w.tiles.chunks.size, 2);
});

test('areaDropped forgets its chunks whole, so the store holds only the chunks in use', () => {
  const { w } = setup();
  w.queues.inbox.push({ kind: 'blockSet', x: 16, y: 32, blockType: 'stone', owner: 'a' });
  w.queues.inbox.push({ kind: 'blockSet', x: 31, y: 47, blockType: 'stone', owner: 'a' });
  w.queues.inbox.push({ kind: 'blockSet', x: 32, y: 32, blockType: 'iron', owner: 'a' });
  step(w);
  assert.is(w.tiles.chunks.size, 2);
  w.queues.inbox.push({ kind: 'areaDropped', x: 16, y: 32, width: 16, height: 16 });
  step(w);
  assert.is(blockAt(w.tiles, 16, 32), null);
  assert.is(blockAt(w.tiles, 31, 47), null);
  assert.is(blockAt(w.tiles, 32, 32), 'iron');
  assert.is(w.tiles.chunks.size, 1);
});

test('a presence row spawns a remote player; its own row is ignored', () => {
  const { w } = setup();
  w.queues.inbox.push(upsert('bob', 320, 64, 80), upsert('me', 999, 999));
  step(w);
  const bob = findPlayer(w, 'bob');
  assert.ok(bob > 0);
  assert.is(w.names[bob], 'N-bob');
  assert.is(xOf(w.transform, bob), 320);
  assert.is(w.vitals.health[bob], 80);
  assert.is(w.vitals.level[bob], 2);
  assert.is(w.look.hairStyle[bob], 2);
  assert.is(xOf(w.transform, w.local), 0);
});

/** A pose event of `id`: at sender step `n` it stood at (x, y) walking in direction (dx, dy). */
const pose = (id: string, n: number, x: number, y: number, dx: number, dy: number) => ({
  kind: 'playerPose' as const, id, x, y, dx, dy, seq: n, facing: dx || 1, moving: dx !== 0 || dy !== 0, swinging: false, t: 1000 + n * 16,
});

test('a remote player walks forward from a start event at 3 px a step, and stops where the stop event says', () => {
  const { w } = setup();
  w.queues.inbox.push(upsert('ann', 100, 200));
  step(w);
  const ann = findPlayer(w, 'ann');
  w.queues.inbox.push(pose('ann', 10, 100, 200, 1, 0));
  for (let i = 0; i < 40; i++) step(w);
  assert.is(xOf(w.transform, ann), 100 + 3 * 40);
  assert.is(yOf(w.transform, ann), 200);
  assert.is(w.motion.moving[ann], 1);
  w.queues.inbox.push(pose('ann', 50, 220, 200, 0, 0));
  step(w);
  assert.is(xOf(w.transform, ann), 220);
  step(w);
  assert.is(xOf(w.transform, ann), 220);
  assert.is(w.motion.moving[ann], 0);
});

test('a correction glides at most 1 px a step and lands exactly, without a jump', () => {
  const { w } = setup();
  w.queues.inbox.push(upsert('ann', 0, 0));
  step(w);
  const ann = findPlayer(w, 'ann');
  // The figure walks right from 0; the next keyframe says the player is 30 px further on.
  w.queues.inbox.push(pose('ann', 1, 0, 0, 1, 0));
  for (let i = 0; i < 10; i++) step(w);
  assert.is(xOf(w.transform, ann), 30);
  w.queues.inbox.push(pose('ann', 63, 60, 0, 1, 0));
  const xs = [xOf(w.transform, ann)];
  for (let i = 0; i < 40; i++) {
    step(w);
    xs.push(xOf(w.transform, ann));
  }
  const moves = xs.slice(1).map((x, i) => x - xs[i]!);
  // 30 px of gap at 1 px a step on top of the 3 px walk: 30 steps of 4 px, then 3 px a step.
  assert.equal(moves.slice(0, 30), Array(30).fill(4));
  assert.equal(moves.slice(30), Array(10).fill(3));
  assert.is(xs[40], 60 + 3 * 40);
});

test('a pose older than the last one applied changes nothing', () => {
  const { w } = setup();
  w.queues.inbox.push(upsert('ann', 0, 0));
  step(w);
  const ann = findPlayer(w, 'ann');
  w.queues.inbox.push(pose('ann', 20, 0, 0, 0, 0), pose('ann', 19, 0, 0, 1, 0));
  for (let i = 0; i < 5; i++) step(w);
  assert.is(xOf(w.transform, ann), 0);
});

test('a pose from an id with no presence never creates a remote player', () => {
  const { w } = setup();
  w.queues.inbox.push(pose('stranger', 1, 0, 0, 1, 0));
  step(w);
  assert.is(findPlayer(w, 'stranger'), 0);
  assert.is(w.poses.size, 0);
});

test('the engine applies at most MAX_EVENTS_PER_STEP events a step and keeps at most MAX_REMOTE_PLAYERS', () => {
  const { w } = setup();
  const flood = Array.from({ length: MAX_EVENTS_PER_STEP + 100 }, (_, i) => upsert(`p${i}`, i, 0));
  w.queues.inbox.push(...flood);
  step(w);
  assert.is(w.queues.inbox.length, 100);
  assert.is(w.poses.size, MAX_REMOTE_PLAYERS);
  step(w);
  assert.is(w.queues.inbox.length, 0);
  assert.is(w.poses.size, MAX_REMOTE_PLAYERS);
});

test('playerLeft removes the player, and an old reference no longer resolves', () => {
  const { w } = setup();
  w.queues.inbox.push(upsert('bob', 320, 64));
  step(w);
  const bob = findPlayer(w, 'bob');
  const ref = entityRef(w, bob);
  w.queues.inbox.push({ kind: 'playerLeft', id: 'bob' });
  step(w);
  assert.is(findPlayer(w, 'bob'), 0);
  assert.is(resolveRef(w, ref), 0);
  const carol = spawnRemotePlayer(w, { id: 'carol', name: 'Carol' });
  assert.is(carol, bob);
  assert.is(resolveRef(w, ref), 0);
  assert.is(resolveRef(w, entityRef(w, carol)), carol);
});

test('damage to the local player respects the 1000 ms cooldown and raises the Under Attack toast', () => {
  const { w, me, toasts } = setup();
  w.queues.inbox.push({ kind: 'damaged', attackerId: 'bob', amount: 25 }, { kind: 'damaged', attackerId: 'bob', amount: 25 });
  step(w);
  assert.is(w.vitals.health[me], 75);
  assert.equal(toasts, [{ title: 'Under Attack!', description: 'You took 25 damage!', variant: 'destructive' }]);
  while (w.time - w.combat.lastDamage[me]! < 1000) step(w);
  w.queues.inbox.push({ kind: 'damaged', attackerId: 'bob', amount: 30 });
  step(w);
  assert.is(w.vitals.health[me], 45);
  assert.is(toasts.length, 2);
});

test("the server's record sets the local level, and the health unless a hit arrived meanwhile", () => {
  const { w, me } = setup();
  w.queues.inbox.push({ kind: 'recorded', health: 75, level: 3 });
  step(w);
  assert.is(w.vitals.level[me], 3);
  assert.is(w.vitals.health[me], 75);
  w.queues.inbox.push({ kind: 'recorded', health: null, level: 4 });
  step(w);
  assert.equal([w.vitals.level[me], w.vitals.health[me]], [4, 75], 'a null health leaves the mirror alone');
  w.queues.inbox.push({ kind: 'recorded', health: 0, level: 4 });
  step(w);
  assert.is(w.vitals.defeated[me], 1, 'health 0 from the server defeats the player like a hit');
  w.queues.inbox.push({ kind: 'recorded', health: 100, level: 4 });
  step(w);
  assert.is(w.vitals.health[me], 0, 'a defeated player waits for its own respawn');
});

test.run();
