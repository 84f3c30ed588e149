/**
 * Remote players are simulated, not streamed. Movement is deterministic (PLAYER_SPEED px per
 * step), so a pose event gives a remote player's position and walking direction, and the engine
 * walks it forward step by step from there (docs/architecture.md "Units": pixels). The figure on
 * screen walks with the same velocity and is pulled toward the authoritative track by at most
 * CORRECTION_PX_PER_STEP, so a late or corrected pose never makes it jump.
 */
import { walkVelocity } from '../protocol/movement.js';

/**
 * Most pixels per step the drawn figure is pulled toward the authoritative position, on top of
 * its walk: 1 px keeps a correcting walker at 4/3 of walking speed, so a frame that holds one
 * step more than the last still draws no faster than 1.5x walking speed.
 */
export const CORRECTION_PX_PER_STEP = 1;
/**
 * The pull toward a track that stands still: a player that stopped where a lost or late stop
 * left its figure walking on is brought back at 4/3 of walking speed with its walk, so the figure stands where the
 * player stands within 500 ms of the stop's first repeat (net/poses/poses.ts) for gaps up to ~80 px.
 */
export const STANDING_CORRECTION_PX_PER_STEP = 4;
/**
 * Beyond this many pixels between the figure and its authoritative position the player
 * teleported (a respawn, told by its presence row): the figure is placed there at once.
 */
export const TELEPORT_PX = 512;
/**
 * A walking remote player that sends nothing for this long is stopped where it is: its sender
 * keyframes about once a second (net/poses/poses.ts), so two missed keyframes mean it is gone or lost.
 */
export const SILENT_STOP_MS = 2500;

/** The authoritative track of one remote player, in pixels and engine steps. */
export interface RemoteTrack {
  /** Where the player is now, simulated forward from its last pose event. */
  x: number;
  y: number;
  /** Velocity in pixels per step from the last pose event. */
  vx: number;
  vy: number;
  /** The pose number (`seq`) of the last pose event applied (older events are ignored); -1 before the first. */
  seq: number;
  /** World time of the last pose event, or -Infinity. */
  lastLive: number;
  /** Whether the newest pose or presence row shows a swing. */
  swinging: boolean;
}

/** A track standing at (x, y). */
export function createRemoteTrack(x: number, y: number): RemoteTrack {
  return { x, y, vx: 0, vy: 0, seq: -1, lastLive: -Infinity, swinging: false };
}

/**
 * Applies a pose event heard at world time `now`: the player stood at (x, y) at the sender's pose
 * number `seq` and walks in direction (dx, dy) from there. Returns false for an event older than the
 * last one applied.
 */
export function applyPoseEvent(track: RemoteTrack, now: number, seq: number, x: number, y: number, dx: number, dy: number): boolean {
  if (seq <= track.seq) return false;
  const { vx, vy } = walkVelocity(dx, dy);
  track.seq = seq;
  track.x = x;
  track.y = y;
  track.vx = vx;
  track.vy = vy;
  track.lastLive = now;
  return true;
}

/**
 * The pull toward the track for a figure at (fx, fy): the whole gap when it is at most the step's
 * pull (or a teleport), else the pull along it. The pull is CORRECTION_PX_PER_STEP for a walking
 * track and STANDING_CORRECTION_PX_PER_STEP for a standing one. Written into `out`.
 */
export function correction(track: RemoteTrack, fx: number, fy: number, out: { x: number; y: number }): void {
  const ex = track.x - fx;
  const ey = track.y - fy;
  const gap = Math.hypot(ex, ey);
  const pull = track.vx === 0 && track.vy === 0 ? STANDING_CORRECTION_PX_PER_STEP : CORRECTION_PX_PER_STEP;
  const scale = gap <= pull || gap > TELEPORT_PX ? 1 : pull / gap;
  out.x = ex * scale;
  out.y = ey * scale;
}
