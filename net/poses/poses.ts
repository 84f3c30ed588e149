/**
 * Live positions over Realtime broadcast on private region channels. Movement is deterministic
 * (3 px per 16 ms step), so the local player does not stream positions: it sends a pose event
 * when it starts, stops, turns, swings or its interest centre moves to another region, each
 * stamped with the step it happened at, plus a keyframe every POSE_KEYFRAME_STEPS steps while it
 * walks. A stop is repeated POSE_STOP_REPEAT_STEPS after it (a lost or late stop would leave the
 * player walking on others' screens), and a player standing still keyframes every
 * POSE_STANDING_KEYFRAME_STEPS. Receivers walk remote players forward from the last event
 * (components/pose.ts). A client listens to the 3x3 regions around it, so it hears only the
 * players near it.
 *
 * Whatever the backend, a received pose is believed only from a wallet with a fresh presence
 * row and within the movement budget from its last known position (net/presence/peers.ts), and at most
 * MAX_POSES_PER_STEP poses reach the engine per step.
 *
 * Region channels ask for their broadcasts in batches (`config.broadcast.batch`): the embedded
 * server then sends each client the poses of a region gathered over a server tick as one `batch`
 * message (server/realtime/batches.ts), so a crowd costs a client a few messages a tick instead
 * of one per pose. Hosted Supabase ignores the option and sends each pose alone; both are taken.
 *
 * Where its changes come from: other clients, which broadcast their poses (event `pose`) on the
 * private `region:rx:ry` topic of their interest centre; the server only authorises, stamps the
 * sender's wallet (embedded) and gathers them into `batch` messages. Which topics are heard, and
 * which one this client sends on, is the session's one interest (net/interest/interest.ts): its
 * 3x3 regions, followed from the first update, once the player is in the world.
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { MAX_REMOTE_PLAYERS, type NetEvent } from '../../components/network.js';
import { walkVelocity } from '../../protocol/movement.js';
import { decodePose, encodePose, posesOfBatch, type PosePayload } from '../../protocol/poses.js';
import { BATCH_EVENT, POSE_EVENT, regionTopic } from '../../protocol/topics.js';
import type { Interest, InterestArea } from '../interest/interest.js';
import type { Peers } from '../presence/peers.js';

/** Steps between two keyframes while walking: 62 steps of 16 ms, about once a second. */
export const POSE_KEYFRAME_STEPS = 62;
/**
 * Steps after a stop at which the standing pose is sent again (about 100, 200 and 400 ms): when
 * the stop was lost, the next copy stops the player on others' screens soon enough that the
 * figure stands where it stopped within 500 ms.
 */
export const POSE_STOP_REPEAT_STEPS: readonly number[] = [6, 12, 24];
/** Steps between two keyframes of a player standing still after the stop's repeats: about 3 s. */
export const POSE_STANDING_KEYFRAME_STEPS = 180;
/**
 * Most poses handed to the engine between two steps; the rest of a burst is dropped (a later
 * event or keyframe supersedes it). A server tick's batch holds at most one pose per sender, so
 * this is every remote player the engine keeps turning in the same tick.
 */
export const MAX_POSES_PER_STEP = MAX_REMOTE_PLAYERS;

/** The local player's pose as the engine knows it. */
export interface Pose {
  x: number;
  y: number;
  facing: number;
  moving: boolean;
  isSwinging: boolean;
}

/** The region channel options: private (authorised per topic), no echo, no acknowledgement, batches where the server makes them. */
export const REGION_CHANNEL_CONFIG = { config: { private: true, broadcast: { self: false, ack: false, batch: true } } } as const;

/** The payload as a pose event, or null when it is not a well-formed pose (protocol/poses.ts). */
function parsePose(payload: unknown): Extract<NetEvent, { kind: 'playerPose' }> | null {
  const p = decodePose(payload);
  if (!p) return null;
  return { kind: 'playerPose', ...p, moving: p.dx !== 0 || p.dy !== 0 };
}

/** What the pose receiver needs. */
export interface PoseReceiverOptions {
  playerId: string;
  peers: Peers;
  emit(event: NetEvent): void;
  now(): number;
}

/** The receiving half: judges each heard pose and passes the believable ones on. */
export interface PoseReceiver {
  /** One broadcast payload heard on a region channel. */
  receive(payload: unknown): void;
  /** A `batch` payload heard on a region channel: `{events: [{event, payload}, ...]}`; its `pose` events are received in order. */
  receiveBatch(payload: unknown): void;
  /** A new engine step began: the per-step allowance starts again. */
  step(): void;
  /** Poses passed on so far. */
  received(): number;
  /** Poses ignored so far: malformed, unknown sender, beyond the movement budget or over the step's allowance. */
  ignored(): number;
}

/** Creates a receiver; see the module comment for what it believes. */
export function createPoseReceiver(options: PoseReceiverOptions): PoseReceiver {
  let passedThisStep = 0;
  let receivedCount = 0;
  let ignoredCount = 0;
  function receive(payload: unknown): void {
    if (passedThisStep >= MAX_POSES_PER_STEP) {
      ignoredCount++;
      return;
    }
    const pose = parsePose(payload);
    if (!pose || pose.id === options.playerId) return;
    if (!options.peers.admit(pose.id, pose.x, pose.y, options.now())) {
      ignoredCount++;
      return;
    }
    passedThisStep++;
    receivedCount++;
    options.emit(pose);
  }
  return {
    receive,
    receiveBatch(payload) {
      for (const pose of posesOfBatch(payload)) receive(pose);
    },
    step() {
      passedThisStep = 0;
    },
    received: () => receivedCount,
    ignored: () => ignoredCount,
  };
}

/**
 * Pixels the local player may stray from where receivers simulate it before a pose goes out
 * anyway: a walk the engine did not make at 3 px a step (the world's edge, a respawn, a caller
 * that moves the pose itself) is corrected at once.
 */
export const POSE_DRIFT_PX = 4;

/** What a pose event says about the sender, to tell when the next one is due. */
interface Sent {
  x: number;
  y: number;
  dx: number;
  dy: number;
  f: number;
  s: boolean;
  topic: string;
  n: number;
  /** The step of the stop this standing pose repeats (its own step for the stop itself); -1 while walking. */
  stoppedAt: number;
}

/** Whether a keyframe is due at step `n` after the pose `last` went out. */
function keyframeDue(last: Sent, n: number): boolean {
  if (last.dx !== 0 || last.dy !== 0) return n - last.n >= POSE_KEYFRAME_STEPS;
  const since = n - last.stoppedAt;
  const repeat = POSE_STOP_REPEAT_STEPS.find((after) => last.n - last.stoppedAt < after);
  return repeat !== undefined ? since >= repeat : n - last.n >= POSE_STANDING_KEYFRAME_STEPS;
}

/**
 * The sending half: given the local pose each step, the payload to send now, or null. The
 * walking direction comes from the movement since the last step (held while a walking pose
 * has not moved this step).
 */
export function createPoseSender(playerId: string, now: () => number) {
  let last: Sent | null = null;
  let previous: { x: number; y: number } | null = null;
  let direction = { dx: 0, dy: 0 };
  /** Whether `pose` is more than POSE_DRIFT_PX from where receivers simulate the player at step `n`. */
  const strayed = (pose: Pose, n: number) => {
    if (!last) return true;
    const { vx, vy } = walkVelocity(last.dx, last.dy);
    return Math.hypot(pose.x - (last.x + vx * (n - last.n)), pose.y - (last.y + vy * (n - last.n))) > POSE_DRIFT_PX;
  };
  return {
    /** The payload due at step `n` for `pose`, sent on `topic`, or null; call `sent` once it went out. */
    due(pose: Pose, n: number, topic: string): { topic: string; payload: PosePayload } | null {
      const mx = previous ? Math.sign(pose.x - previous.x) : 0;
      const my = previous ? Math.sign(pose.y - previous.y) : 0;
      previous = { x: pose.x, y: pose.y };
      if (!pose.moving) direction = { dx: 0, dy: 0 };
      else if (mx !== 0 || my !== 0) direction = { dx: mx, dy: my };
      const f = Math.sign(pose.facing);
      const changed =
        !last || last.dx !== direction.dx || last.dy !== direction.dy || last.f !== f || last.s !== pose.isSwinging || last.topic !== topic;
      if (!changed && !keyframeDue(last!, n) && !strayed(pose, n)) return null;
      return {
        topic,
        payload: encodePose({ id: playerId, x: pose.x, y: pose.y, dx: direction.dx, dy: direction.dy, seq: n, facing: f, swinging: pose.isSwinging, t: now() }),
      };
    },
    /** Records that `payload` went out on `topic`. */
    sent(topic: string, payload: PosePayload) {
      const standing = payload.dx === 0 && payload.dy === 0;
      // A player's first pose is no stop: its presence row already placed it, so it is not
      // repeated (in a crowd arriving at spawn every repeat would reach everyone).
      const stoppedAt = !standing ? -1
        : !last ? payload.n - POSE_STOP_REPEAT_STEPS[POSE_STOP_REPEAT_STEPS.length - 1]!
        : last.dx === 0 && last.dy === 0 ? last.stoppedAt : payload.n;
      last = { x: payload.x, y: payload.y, dx: payload.dx, dy: payload.dy, f: payload.f, s: payload.s, topic, n: payload.n, stoppedAt };
    },
  };
}

/** What the pose channels need from their surroundings. */
export interface PoseOptions {
  playerId: string;
  peers: Peers;
  emit(event: NetEvent): void;
  now(): number;
  /** The session's interest: its 3x3 regions are the channels heard, its centre's the one sent on. */
  interest: Pick<Interest, 'area' | 'onArea'>;
}

/** The live-position side of the network session. */
export interface PoseChannels {
  /**
   * Called every engine step `n` once the player is in the world (the region channels admit
   * players with a presence row) with the local pose: the first call starts following the
   * interest's regions; each sends what changed.
   */
  update(pose: Pose, n: number): void;
  /** Topics currently listened to. */
  topics(): string[];
  /** Poses received and believed so far (for the figures). */
  received(): number;
  close(): Promise<void>;
}

/** Creates the region channels; nothing is joined until the first update. */
export function createPoseChannels(db: SupabaseClient, options: PoseOptions): PoseChannels {
  const channels = new Map<string, RealtimeChannel>();
  const receiver = createPoseReceiver(options);
  const sender = createPoseSender(options.playerId, options.now);

  function join(topic: string): void {
    const channel = db
      .channel(topic, REGION_CHANNEL_CONFIG)
      .on('broadcast', { event: POSE_EVENT }, ({ payload }) => receiver.receive(payload))
      .on('broadcast', { event: BATCH_EVENT }, ({ payload }) => receiver.receiveBatch(payload))
      .subscribe();
    channels.set(topic, channel);
  }

  let unfollow: (() => void) | null = null;

  /** Leaves the channels outside `area` and joins those of its regions not yet joined. */
  function follow(area: InterestArea): void {
    const wanted = new Set(area.topics);
    for (const [topic, channel] of channels) {
      if (!wanted.has(topic)) {
        channels.delete(topic);
        void db.removeChannel(channel);
      }
    }
    for (const topic of wanted) if (!channels.has(topic)) join(topic);
  }

  return {
    update(pose, n) {
      receiver.step();
      unfollow ??= options.interest.onArea(follow);
      const area = options.interest.area();
      if (!area) return;
      // Sent on the centre's channel, not the region the player stands in: every client that can
      // see the player listens to it (net/interest/centre.ts), and a walk to and fro over a border
      // does not switch channels (each switch is a pose to send).
      const due = sender.due(pose, n, regionTopic(area.centre));
      if (!due) return;
      const channel = channels.get(due.topic);
      // Sending on a channel that is not joined would fall back to an HTTP request per pose;
      // the event stays due and goes out once the channel is joined.
      if (!channel || channel.state !== 'joined') return;
      void channel.send({ type: 'broadcast', event: POSE_EVENT, payload: due.payload });
      sender.sent(due.topic, due.payload);
    },
    topics: () => [...channels.keys()],
    received: () => receiver.received(),
    close: async () => {
      unfollow?.();
      await Promise.all([...channels.values()].map((channel) => db.removeChannel(channel)));
      channels.clear();
    },
  };
}
