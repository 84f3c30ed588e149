import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_APPEARANCE } from '../../../components/appearance-types.js';
import type { Toast } from '../../../components/hud.js';
import { entityRef, findPlayer, resolveRef, spawnLocalPlayer, spawnRemotePlayer } from '../../../components/players.js';
import { blockAt, blockOwnerAt } from '../../../components/tiles.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';

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

test('blocksReset forgets every block, and the reload that follows sets them again', () => {
  const { w } = setup();
  w.queues.inbox.push({ kind: 'blockSet', x: 10, y: 10, blockType: 'stone', owner: 'a' });
  w.queues.inbox.push({ kind: 'blockSet', x: -300, y: 900, blockType: 'glass', owner: 'b' });
  step(w);
  w.queues.inbox.push({ kind: 'blocksReset' }, { kind: 'blockSet', x: 10, y: 10, blockType: 'wood', owner: 'a' });
  step(w);
  assert.is(blockAt(w.tiles, 10, 10), 'wood');
  assert.is(blockAt(w.tiles, -300, 900), null);
  assert.is(w.tiles.chunks.size, 1);
});

test('a presence row spawns a remote player; its own row is ignored', () => {
  const { w } = setup();
  w.queues.inbox.push(upsert('bob', 320, 64, 80), upsert('me', 999, 999));
  step(w);
  const bob = findPlayer(w, 'bob');
  assert.ok(bob > 0);
  assert.is(w.names[bob], 'N-bob');
  assert.is(w.transform.x[bob], 320);
  assert.is(w.vitals.health[bob], 80);
  assert.is(w.vitals.level[bob], 2);
  assert.is(w.look.hairStyle[bob], 2);
  assert.is(w.transform.x[w.local], 0);
});

test('live poses are drawn 100 ms late and interpolated, never jumping', () => {
  const { w } = setup();
  w.queues.inbox.push({ kind: 'playerPose', id: 'ann', x: 0, y: 0, facing: 1, moving: true, swinging: false, t: 5000 });
  step(w);
  const ann = findPlayer(w, 'ann');
  const xs: number[] = [];
  for (let i = 1; i <= 20; i++) {
    if (i % 6 === 0) w.queues.inbox.push({ kind: 'playerPose', id: 'ann', x: i * 3, y: 0, facing: 1, moving: true, swinging: false, t: 5000 + i * 16 });
    step(w);
    xs.push(w.transform.x[ann]!);
  }
  for (let i = 1; i < xs.length; i++) {
    assert.ok(xs[i]! >= xs[i - 1]!, 'monotonic');
    assert.ok(xs[i]! - xs[i - 1]! <= 3.0001, `step ${i} moved ${xs[i]! - xs[i - 1]!}`);
  }
  assert.is(xs[0], 0);
  // Poses arrive every 96 ms and are stamped on arrival (x = 18 at 112, x = 36 at 208); at world
  // time 224 the player is drawn as of 124, an eighth of the way from the first to the second.
  assert.is(w.time, 336);
  assert.is(xs[12], 20.25);
});

test('a pose that arrives faster than the ones before does not make the player leap ahead', () => {
  const { w } = setup();
  // The sender walks 12 px per 64 ms and sends a pose each time; each takes 80 ms to arrive,
  // except pose 6, which arrives at once (before pose 5): the smallest delay seen drops by 80 ms.
  const arrivals = Array.from({ length: 16 }, (_, k) => ({ k, at: 64 * k + (k === 6 ? 0 : 80) }));
  const xs: number[] = [];
  for (let i = 0; i < 80; i++) {
    for (const { k, at } of arrivals) {
      if (at > w.time && at <= w.time + 16) {
        w.queues.inbox.push({ kind: 'playerPose', id: 'ann', x: 12 * k, y: 0, facing: 1, moving: true, swinging: false, t: 50_000 + 64 * k });
      }
    }
    step(w);
    const ann = findPlayer(w, 'ann');
    if (ann) xs.push(w.transform.x[ann]!);
  }
  // Walking is 3 px per 16 ms step; with the offset slewed, no step draws more than 3.75 px.
  for (let i = 1; i < xs.length; i++) assert.ok(xs[i]! - xs[i - 1]! <= 3.75 + 1e-9, `step ${i} moved ${xs[i]! - xs[i - 1]!}`);
  assert.is(xs[xs.length - 1], 12 * 15);
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

test.run();
