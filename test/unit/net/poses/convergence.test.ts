import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_APPEARANCE } from '../../../../components/appearance-types.js';
import { STEP_MS } from '../../../../components/constants.js';
import { findPlayer, spawnLocalPlayer } from '../../../../components/players.js';
import { xOf, yOf } from '../../../../components/transform.js';
import { createGameWorld } from '../../../../components/world.js';
import { createPeers } from '../../../../net/presence/peers.js';
import { createPoseReceiver, createPoseSender, type Pose } from '../../../../net/poses/poses.js';
import type { PosePayload } from '../../../../protocol/poses.js';
import { step } from '../../../../systems/pipeline.js';

/** Steps Alpha walks east at 3 px a step before it stops at x = 300. */
const WALK_STEPS = 100;
const STOP_X = 3 * WALK_STEPS;
/** The convergence promise: 500 ms after the stop, Bravo draws Alpha where it stands. */
const CONVERGE_STEPS = Math.floor(500 / STEP_MS);

/** What the network does to one pose: delivered after `delay` steps, or lost (null). */
type Fate = (payload: PosePayload, index: number, stopIndex: number) => number | null;

/**
 * Alpha walks, stops and stands; its poses reach Bravo through a network that delays, drops and
 * reorders them as `fate` says. Returns where Bravo draws Alpha at each step after the stop.
 */
function run(fate: Fate): { drawn: number[]; sent: PosePayload[] } {
  const bravo = createGameWorld({ hud: { set() {}, toast() {} } });
  spawnLocalPlayer(bravo, { id: 'bravo', name: 'Bravo' });
  const peers = createPeers();
  const rx = createPoseReceiver({ playerId: 'bravo', peers, emit: (e) => bravo.queues.inbox.push(e), now: () => bravo.time });
  peers.seen('alpha', 0, 0, 0);
  bravo.queues.inbox.push({
    kind: 'playerUpsert', id: 'alpha', name: 'Alpha', x: 0, y: 0, health: 100, maxHealth: 100, level: 1, appearance: { ...DEFAULT_APPEARANCE }, isSwinging: false,
  });
  step(bravo);
  const alpha = findPlayer(bravo, 'alpha');
  const sender = createPoseSender('alpha', () => 0);
  const pose: Pose = { x: 0, y: 0, facing: 1, moving: false, isSwinging: false };
  const sent: PosePayload[] = [];
  const wire: Array<{ at: number; payload: PosePayload }> = [];
  let stopIndex = -1;
  const drawn: number[] = [];
  for (let n = 1; n <= WALK_STEPS + 300; n++) {
    pose.moving = n <= WALK_STEPS;
    if (pose.moving) pose.x += 3;
    const due = sender.due(pose, n, 'region:0:0');
    if (due) {
      sender.sent(due.topic, due.payload);
      if (stopIndex < 0 && n > WALK_STEPS && due.payload.dx === 0) stopIndex = sent.length;
      const delay = fate(due.payload, sent.length, stopIndex);
      sent.push(due.payload);
      if (delay !== null) wire.push({ at: n + delay, payload: due.payload });
    }
    wire.sort((a, b) => a.at - b.at);
    while (wire.length > 0 && wire[0]!.at <= n) rx.receive(wire.shift()!.payload);
    rx.step();
    step(bravo);
    assert.is(yOf(bravo.transform, alpha), 0);
    if (n > WALK_STEPS) drawn.push(xOf(bravo.transform, alpha));
  }
  return { drawn, sent };
}

/** Asserts Alpha is drawn exactly where it stopped from 500 ms after the stop on. */
function assertConverged(drawn: number[], label: string): void {
  const late = drawn.slice(CONVERGE_STEPS - 1);
  assert.ok(late.every((x) => x === STOP_X), `${label}: 500 ms after the stop Alpha is drawn at ${drawn[CONVERGE_STEPS - 1]}, not ${STOP_X}`);
}

test('a stopped player is drawn where it stands within 500 ms when every pose arrives', () => {
  const { drawn, sent } = run(() => 3);
  assertConverged(drawn, 'no loss');
  // The stop, its three repeats and a standing keyframe about every 3 s.
  assert.equal(sent.filter((p) => p.dx === 0 && p.n > WALK_STEPS).map((p) => p.n - WALK_STEPS - 1), [0, 6, 12, 24, 204]);
});

test('a lost stop pose is made good by its repeat within 500 ms', () => {
  const { drawn } = run((_, i, stop) => (i === stop ? null : 3));
  assert.ok(drawn[5]! > STOP_X, 'without the stop Alpha walks on at first');
  assertConverged(drawn, 'stop lost');
});

test('a stop and its first repeat both lost, the second repeat still stops the player within 500 ms', () => {
  const { drawn } = run((_, i, stop) => (stop >= 0 && i >= stop && i <= stop + 1 ? null : 3));
  assertConverged(drawn, 'two lost');
});

test('reordered poses: a late walking keyframe after the stop and a stop overtaken by its repeat do not move the player', () => {
  const { drawn } = run((p, i, stop) => {
    // The last walking keyframe is held back past the stop; the stop itself arrives after its first repeat.
    if (p.dx !== 0 && p.n > WALK_STEPS - 62) return 20;
    if (i === stop) return 10;
    return 2;
  });
  assertConverged(drawn, 'reordered');
});

test.run();
