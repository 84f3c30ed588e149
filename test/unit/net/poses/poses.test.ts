import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_APPEARANCE } from '../../../../components/appearance-types.js';
import { MAX_EVENTS_PER_STEP, MAX_REMOTE_PLAYERS, type NetEvent } from '../../../../components/network.js';
import { findPlayer, spawnLocalPlayer } from '../../../../components/players.js';
import { createGameWorld } from '../../../../components/world.js';
import { createPeers } from '../../../../net/presence/peers.js';
import { createPoseReceiver, createPoseSender, MAX_POSES_PER_STEP, POSE_KEYFRAME_STEPS, POSE_STANDING_KEYFRAME_STEPS, type Pose } from '../../../../net/poses/poses.js';
import { MOVE_PX_PER_MS, MOVE_SLACK_PX } from '../../../../protocol/movement.js';
import { step } from '../../../../systems/pipeline.js';

const payload = (id: string, x: number, y: number, n = 1, dx = 1) => ({ id, x, y, dx, dy: 0, n, f: 1, s: false, t: 5000 + n });

function receiver(now: () => number) {
  const events: NetEvent[] = [];
  const peers = createPeers();
  const rx = createPoseReceiver({ playerId: 'me', peers, emit: (e) => events.push(e), now });
  return { events, peers, rx };
}

test('a pose from an id without a presence row is ignored, a known one is passed on with its clock', () => {
  const { events, peers, rx } = receiver(() => 1000);
  peers.seen('ann', 100, 100, 1000);
  rx.receive(payload('invented', 100, 100));
  rx.receive(payload('ann', 100, 100, 7));
  rx.receive(payload('me', 100, 100));
  rx.receive({ id: 'ann', x: 'far', y: 0 });
  assert.equal(events, [{ kind: 'playerPose', id: 'ann', x: 100, y: 100, dx: 1, dy: 0, seq: 7, facing: 1, moving: true, swinging: false, t: 5007 }]);
  assert.is(rx.ignored(), 1);
});

test('a pose beyond the movement budget from the last known position is ignored', () => {
  let clock = 1000;
  const { events, peers, rx } = receiver(() => clock);
  peers.seen('ann', 0, 0, 1000);
  clock = 2000;
  // One second allows 96 + 225 = 321 px.
  const budget = MOVE_SLACK_PX + MOVE_PX_PER_MS * 1000;
  assert.is(budget, 321);
  rx.receive(payload('ann', 322, 0, 1));
  assert.is(events.length, 0);
  rx.receive(payload('ann', 321, 0, 2));
  assert.is(events.length, 1);
  // The accepted pose is the new last known position: from there, 96 px at once and no more.
  rx.receive(payload('ann', 321 + 97, 0, 3));
  rx.receive(payload('ann', 321 + 96, 0, 4));
  assert.equal(events.map((e) => e.kind === 'playerPose' && e.x), [321, 417]);
  assert.is(rx.ignored(), 2);
});

test('a presence row arriving after the poses that followed it does not pull the player back; a row far from what was heard does', () => {
  let clock = 1000;
  const { events, peers, rx } = receiver(() => clock);
  peers.seen('ann', 0, 0, 1000);
  clock = 1400;
  rx.receive(payload('ann', 100, 0, 1));
  // The row of a heartbeat sent when Ann stood at x = 40 arrives after her pose at x = 100.
  clock = 1450;
  peers.seen('ann', 40, 0, clock);
  clock = 1500;
  rx.receive(payload('ann', 160, 0, 2));
  assert.equal(peers.position('ann'), { x: 160, y: 0 }, 'walked on from the pose, not from the late row');
  // A row far from where she was heard is the truth: poses from the old place are now out of budget.
  clock = 1550;
  peers.seen('ann', 160 + MOVE_SLACK_PX + MOVE_PX_PER_MS * 1000 + 1, 0, clock);
  clock = 1600;
  rx.receive(payload('ann', 170, 0, 3));
  assert.equal(events.map((e) => e.kind === 'playerPose' && e.x), [100, 160]);
  assert.is(rx.ignored(), 1);
});

test('the sender sends start, turn, stop and a keyframe a second while walking; a stop after a walk is repeated three times, then standing keyframes every 3 s', () => {
  const sender = createPoseSender('me', () => 0);
  const pose: Pose = { x: 0, y: 0, facing: 1, moving: false, isSwinging: false };
  const sent: Array<[number, number, number, number]> = [];
  const run = (n: number) => {
    const due = sender.due(pose, n, n < 300 ? 'region:0:0' : 'region:1:0');
    if (due) {
      sender.sent(due.topic, due.payload);
      sent.push([n, due.payload.x, due.payload.dx, due.payload.dy]);
    }
  };
  run(0); // the first step says where the player stands
  for (let n = 1; n <= 100; n++) run(n); // standing: nothing (the first pose is no stop, not repeated)
  pose.moving = true;
  for (let n = 101; n <= 240; n++) {
    pose.x += n <= 200 ? 3 : -3;
    run(n);
  }
  pose.moving = false;
  for (let n = 241; n <= 400; n++) run(n);
  assert.equal(sent, [
    [0, 0, 0, 0],
    [101, 3, 1, 0],
    [101 + POSE_KEYFRAME_STEPS, 3 * 63, 1, 0],
    // The turn resets the keyframe count: the stop comes before the next one is due.
    [201, 297, -1, 0],
    [241, 180, 0, 0],
    [241 + 6, 180, 0, 0],
    [241 + 12, 180, 0, 0],
    [241 + 24, 180, 0, 0],
    // The interest centre moved: the standing player is announced on its new channel.
    [300, 180, 0, 0],
  ]);
  // Standing on, a keyframe every POSE_STANDING_KEYFRAME_STEPS after the last pose.
  for (let n = 401; n <= 300 + 2 * POSE_STANDING_KEYFRAME_STEPS; n++) run(n);
  assert.equal(sent.slice(-2).map(([n]) => n), [300 + POSE_STANDING_KEYFRAME_STEPS, 300 + 2 * POSE_STANDING_KEYFRAME_STEPS]);
});

test('under 5,000 poses a second the receiver passes a bounded number a step and the engine stays bounded', () => {
  let clock = 0;
  const w = createGameWorld({ hud: { set() {}, toast() {} } });
  spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  const peers = createPeers();
  const rx = createPoseReceiver({ playerId: 'me', peers, emit: (e) => w.queues.inbox.push(e), now: () => clock });
  // 600 real players near by (more than the engine keeps), each with a presence row.
  for (let i = 0; i < 600; i++) {
    peers.seen(`real${i}`, i, 0, 0);
    w.queues.inbox.push({
      kind: 'playerUpsert', id: `real${i}`, name: `R${i}`, x: i, y: 0, health: 100, maxHealth: 100, level: 1, appearance: { ...DEFAULT_APPEARANCE }, isSwinging: false,
    });
  }
  let invented = 0;
  let most = 0;
  // One second of 62 steps, 81 poses each (5,022 a second): four in five from invented ids.
  for (let s = 1; s <= 62; s++) {
    clock += 16;
    rx.step();
    for (let k = 0; k < 81; k++) {
      if (k % 5 === 4) rx.receive(payload(`real${(s * 81 + k) % 600}`, (s * 81 + k) % 600, 0, s));
      else rx.receive(payload(`invented${invented++}`, 0, 0, s));
    }
    const before = w.queues.inbox.length;
    step(w);
    most = Math.max(most, before - w.queues.inbox.length);
    assert.ok(w.poses.size <= MAX_REMOTE_PLAYERS);
  }
  assert.ok(most <= MAX_EVENTS_PER_STEP, `drained ${most} in one step`);
  assert.is(w.poses.size, MAX_REMOTE_PLAYERS);
  assert.is(rx.received(), 62 * 16);
  assert.ok(16 <= MAX_POSES_PER_STEP);
  assert.is(findPlayer(w, 'invented0'), 0);
  assert.is(w.queues.inbox.length, 0);
});

test('a burst from real senders is cut at MAX_POSES_PER_STEP a step', () => {
  const { events, peers, rx } = receiver(() => 0);
  const senders = MAX_POSES_PER_STEP + 100;
  for (let i = 0; i < senders; i++) peers.seen(`p${i}`, 0, 0, 0);
  for (let i = 0; i < senders; i++) rx.receive(payload(`p${i}`, 0, 0));
  assert.is(events.length, MAX_POSES_PER_STEP);
  rx.step();
  for (let i = 0; i < senders; i++) rx.receive(payload(`p${i}`, 0, 0, 2));
  assert.is(events.length, 2 * MAX_POSES_PER_STEP);
  assert.is(rx.ignored(), 2 * 100);
});

test('a batch passes its pose events in order through the same checks; other events and malformed batches are ignored', () => {
  const { events, peers, rx } = receiver(() => 1000);
  peers.seen('ann', 0, 0, 1000);
  peers.seen('bob', 500, 0, 1000);
  rx.receiveBatch({
    events: [
      { event: 'pose', payload: payload('bob', 500, 0, 4) },
      { event: 'hit', payload: payload('ann', 0, 0, 5) },
      { event: 'pose', payload: payload('invented', 0, 0, 6) },
      { event: 'pose', payload: payload('me', 0, 0, 7) },
      { event: 'pose', payload: payload('ann', 2000, 0, 8) },
      'pose',
      null,
      { event: 'pose', payload: payload('ann', 3, 0, 9) },
    ],
  });
  rx.receiveBatch({ events: 'pose' });
  rx.receiveBatch(null);
  rx.receiveBatch([{ event: 'pose', payload: payload('ann', 3, 0, 10) }]);
  assert.equal(events.map((e) => e.kind === 'playerPose' && `${e.id}@${e.seq}`), ['bob@4', 'ann@9']);
  assert.is(rx.ignored(), 2);
});

test.run();
