/**
 * The `pose` event on a region topic (protocol/topics.ts), short keys: at its pose number `n` the
 * sender stood at (x, y) walking in direction (dx, dy, each -1, 0 or 1), facing `f`, swinging
 * `s`; `t` is its clock in ms and `id` its wallet (on the embedded server, stamped by the server).
 * A receiver walks the player forward from there (protocol/movement.ts). The embedded server may
 * hand a topic's broadcasts gathered over a tick as one `batch` event,
 * `{events: [{event, payload}, ...]}`, whose `pose` events are read in order.
 */
import { POSE_EVENT } from './topics.js';

/** A pose as sent. */
export interface PosePayload {
  id: string;
  x: number;
  y: number;
  dx: number;
  dy: number;
  n: number;
  f: number;
  s: boolean;
  t: number;
}

/** What a sender says of itself in a pose. */
export interface PoseFields {
  id: string;
  x: number;
  y: number;
  dx: number;
  dy: number;
  seq: number;
  facing: number;
  swinging: boolean;
  t: number;
}

/** The payload of a pose: its position rounded to whole pixels, the facing to its sign. */
export function encodePose(pose: PoseFields): PosePayload {
  return { id: pose.id, x: Math.round(pose.x), y: Math.round(pose.y), dx: pose.dx, dy: pose.dy, n: pose.seq, f: Math.sign(pose.facing), s: pose.swinging, t: pose.t };
}

const isDirection = (v: unknown): v is number => v === -1 || v === 0 || v === 1;
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The pose a payload says, or null when it is not a well-formed pose. */
export function decodePose(payload: unknown): PoseFields | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as Partial<PosePayload>;
  if (typeof p.id !== 'string' || !isFiniteNumber(p.x) || !isFiniteNumber(p.y) || !isFiniteNumber(p.n) || !isFiniteNumber(p.t)) return null;
  if (!isDirection(p.dx) || !isDirection(p.dy) || !isFiniteNumber(p.f) || typeof p.s !== 'boolean') return null;
  return { id: p.id, x: p.x, y: p.y, dx: p.dx, dy: p.dy, seq: p.n, facing: p.f, swinging: p.s, t: p.t };
}

/** The payloads of the `pose` events of a `batch` payload, in order; anything else is skipped. */
export function posesOfBatch(payload: unknown): unknown[] {
  const events = typeof payload === 'object' && payload !== null ? (payload as { events?: unknown }).events : undefined;
  if (!Array.isArray(events)) return [];
  const poses: unknown[] = [];
  for (const event of events) {
    if (typeof event === 'object' && event !== null && (event as { event?: unknown }).event === POSE_EVENT) poses.push((event as { payload?: unknown }).payload);
  }
  return poses;
}
