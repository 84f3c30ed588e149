/**
 * Where players are and how they move. Each store holds one (x, y) pair per eid, interleaved at
 * `2 * eid` and `2 * eid + 1`: movement reads and writes both axes of a player together, and a
 * range lookup reads a candidate's position from one cache line instead of two arrays.
 */

/** Position in pixels (centre of the player box), the previous step's position, and velocity in pixels per step; (x, y) pairs by eid. */
export interface Transform {
  pos: Float32Array;
  prev: Float32Array;
  vel: Float32Array;
}

/** Animation state: moving flag (drives the bob) and facing (-1 left, 1 right). */
export interface Motion {
  moving: Uint8Array;
  facing: Int8Array;
}

/** Transform arrays for `size` eids. */
export function createTransform(size: number): Transform {
  return {
    pos: new Float32Array(2 * size),
    prev: new Float32Array(2 * size),
    vel: new Float32Array(2 * size),
  };
}

/** Motion arrays for `size` eids. */
export function createMotion(size: number): Motion {
  return { moving: new Uint8Array(size), facing: new Int8Array(size) };
}

/** x of `eid` in pixels. */
export function xOf(t: Transform, eid: number): number {
  return t.pos[2 * eid]!;
}

/** y of `eid` in pixels. */
export function yOf(t: Transform, eid: number): number {
  return t.pos[2 * eid + 1]!;
}

/** Puts `eid` at (x, y) with no motion to interpolate (previous position the same). */
export function placeAt(t: Transform, eid: number, x: number, y: number): void {
  t.pos[2 * eid] = t.prev[2 * eid] = x;
  t.pos[2 * eid + 1] = t.prev[2 * eid + 1] = y;
}

/** Sets the velocity of `eid` in pixels per step. */
export function setVelocity(t: Transform, eid: number, vx: number, vy: number): void {
  t.vel[2 * eid] = vx;
  t.vel[2 * eid + 1] = vy;
}

/** Where `eid` is drawn `alpha` (0..1) of the way from its previous position to its current one, into `out`. */
export function interpolatedPosition(t: Transform, eid: number, alpha: number, out: { x: number; y: number }): void {
  const px = t.prev[2 * eid]!;
  const py = t.prev[2 * eid + 1]!;
  out.x = px + (t.pos[2 * eid]! - px) * alpha;
  out.y = py + (t.pos[2 * eid + 1]! - py) * alpha;
}
