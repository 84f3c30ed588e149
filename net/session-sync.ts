/**
 * Keeps the session in line with the engine, once per engine step (`queues.onStep`, with the
 * engine's step number): move the interest to the local player (the one call that moves the
 * blocks', presence's and poses' regions), report the world's loading, send the local pose if
 * due, record the player at once where it stops or while it fights, follow the connection after
 * a drop, and send the outbox, so an action goes out in the step it was made.
 */
import type { LocalAction } from '../components/network.js';
import { COMBAT_HEARTBEAT_MS } from '../protocol/rules.js';
import type { Interest } from './interest/interest.js';
import type { OutboxSender } from './outbox.js';
import { poseNumbering } from './poses/numbers.js';
import type { Pose, PoseChannels } from './poses/poses.js';
import type { Presence } from './presence/presence.js';
import type { WorldEntry } from './session-entry.js';
import type { SessionLink } from './session-link.js';

/** Fewest ms between two extra heartbeats sent when the player stops moving. */
const STOP_HEARTBEAT_MS = 1000;

/** What the sync reads each step. */
export interface SyncOptions {
  /** The local player's pose. */
  readLocal(): Pose;
  /** Whether another player is within combat range of the local player in the PvP zone. */
  inCombat(): boolean;
  now(): number;
  /** The engine's outbox, drained each step. */
  outbox: LocalAction[];
  /** The wall clock in steps when the session started (net/poses/numbers.ts). */
  clockStep: number;
}

/** The parts the sync drives. */
export interface SyncParts {
  interest: Pick<Interest, 'move'>;
  presence: Pick<Presence, 'heartbeat' | 'heartbeatIfOlder'>;
  poses: Pick<PoseChannels, 'update'>;
  entry: WorldEntry;
  sender: Pick<OutboxSender, 'send'>;
  /** The connection: resyncs and the view's check after a drop run from the step. */
  link: Pick<SessionLink, 'step'>;
}

/**
 * Heartbeats beyond the period: a player who stops somewhere new is recorded there at once (at
 * most once a second), so presence-based checks such as combat range see where players really
 * stand; and while in combat the row is kept at most COMBAT_HEARTBEAT_MS old.
 */
function createExtraBeats(presence: SyncParts['presence'], now: () => number): (moving: boolean, inCombat: boolean) => void {
  let wasMoving = false;
  let lastStopBeat = -Infinity;
  return (moving, inCombat) => {
    if (wasMoving && !moving && now() - lastStopBeat >= STOP_HEARTBEAT_MS) {
      lastStopBeat = now();
      void presence.heartbeat();
    }
    wasMoving = moving;
    if (inCombat) presence.heartbeatIfOlder(COMBAT_HEARTBEAT_MS);
  };
}

/** The session's sync: `run` once per engine step; `stop` makes later calls do nothing. */
export function createSessionSync(options: SyncOptions, parts: SyncParts): { run(engineStep: number): void; stop(): void } {
  const { interest, presence, poses, entry, sender, link } = parts;
  const poseNumber = poseNumbering(options.clockStep);
  const extraBeats = createExtraBeats(presence, options.now);
  let stopped = false;
  return {
    run(engineStep) {
      if (stopped) return;
      const pose = options.readLocal();
      interest.move(pose.x, pose.y);
      entry.step();
      link.step();
      const n = poseNumber(engineStep);
      if (entry.inWorld()) poses.update(pose, n);
      extraBeats(pose.moving, options.inCombat());
      const actions = options.outbox.splice(0);
      if (actions.length > 0) sender.send(actions);
    },
    stop() {
      stopped = true;
    },
  };
}
