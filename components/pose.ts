/**
 * Interpolation buffers for remote players: received poses are stamped with world time and a
 * remote player is drawn INTERPOLATION_DELAY_MS in the past, between the two poses around that
 * moment, so it glides instead of jumping when updates arrive at 10-20 Hz.
 */

const SLOTS = 16;

/** Recent poses of one remote player, oldest to newest in a ring. Times are world ms. */
export interface PoseBuffer {
  t: Float64Array;
  x: Float32Array;
  y: Float32Array;
  /** Poses held (at most 16). */
  count: number;
  /** Ring index of the next write. */
  head: number;
  /** world time minus sender time, the smallest seen: the sender's clock mapped onto ours. NaN until a timed pose arrives. */
  offset: number;
  /** World time of the last live (timed) pose, or -Infinity. */
  lastLive: number;
  /** Whether the newest pose or presence row shows a swing. */
  swinging: boolean;
}

/** An empty buffer. */
export function createPoseBuffer(): PoseBuffer {
  return { t: new Float64Array(SLOTS), x: new Float32Array(SLOTS), y: new Float32Array(SLOTS), count: 0, head: 0, offset: NaN, lastLive: -Infinity, swinging: false };
}

/** Beyond this many pixels between two poses the player teleported (e.g. respawned): no gliding across. */
const TELEPORT_PX = 512;

/** Appends a pose at world time `t`; poses not newer than the last one are dropped, and a teleport restarts the buffer. */
export function pushPoseAt(buf: PoseBuffer, t: number, x: number, y: number): void {
  if (buf.count > 0) {
    const last = (buf.head + SLOTS - 1) % SLOTS;
    if (t <= buf.t[last]!) return;
    if (Math.abs(x - buf.x[last]!) + Math.abs(y - buf.y[last]!) > TELEPORT_PX) buf.count = 0;
  }
  buf.t[buf.head] = t;
  buf.x[buf.head] = x;
  buf.y[buf.head] = y;
  buf.head = (buf.head + 1) % SLOTS;
  if (buf.count < SLOTS) buf.count++;
}

/**
 * How far the sender-to-world clock offset may drop per received pose, in ms. The offset is the
 * smallest delay seen; when a pose arrives faster than any before, moving the whole timeline
 * at once would make the player leap ahead. Slewing it plays the catch-up at most 4 ms per pose
 * (6 % faster at 15 Hz) instead.
 */
export const OFFSET_SLEW_MS = 4;

/** Appends a live pose stamped `senderTime` by the sender's clock, received at world time `now`. */
export function pushLivePose(buf: PoseBuffer, now: number, senderTime: number, x: number, y: number): void {
  const offset = now - senderTime;
  if (Number.isNaN(buf.offset)) buf.offset = offset;
  else if (offset < buf.offset) buf.offset = Math.max(offset, buf.offset - OFFSET_SLEW_MS);
  buf.lastLive = now;
  pushPoseAt(buf, senderTime + buf.offset, x, y);
}

/** The interpolated position at world time `t` into `out` (clamped to the oldest and newest pose). Returns false when empty. */
export function samplePose(buf: PoseBuffer, t: number, out: { x: number; y: number }): boolean {
  if (buf.count === 0) return false;
  const first = (buf.head + SLOTS - buf.count) % SLOTS;
  let prev = first;
  for (let k = 0; k < buf.count; k++) {
    const i = (first + k) % SLOTS;
    const ti = buf.t[i]!;
    if (ti >= t) {
      if (k === 0) break;
      const tp = buf.t[prev]!;
      const a = (t - tp) / (ti - tp);
      out.x = buf.x[prev]! + (buf.x[i]! - buf.x[prev]!) * a;
      out.y = buf.y[prev]! + (buf.y[i]! - buf.y[prev]!) * a;
      return true;
    }
    prev = i;
  }
  out.x = buf.x[prev]!;
  out.y = buf.y[prev]!;
  return true;
}
