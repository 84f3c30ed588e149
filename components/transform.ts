/** Where players are and how they move: structure-of-arrays stores indexed by eid. */

/** Position in pixels (centre of the player box), the previous step's position, and velocity in pixels per step. */
export interface Transform {
  x: Float32Array;
  y: Float32Array;
  prevX: Float32Array;
  prevY: Float32Array;
  vx: Float32Array;
  vy: Float32Array;
}

/** Animation state: moving flag (drives the bob) and facing (-1 left, 1 right). */
export interface Motion {
  moving: Uint8Array;
  facing: Int8Array;
}

/** Transform arrays for `size` eids. */
export function createTransform(size: number): Transform {
  return {
    x: new Float32Array(size),
    y: new Float32Array(size),
    prevX: new Float32Array(size),
    prevY: new Float32Array(size),
    vx: new Float32Array(size),
    vy: new Float32Array(size),
  };
}

/** Motion arrays for `size` eids. */
export function createMotion(size: number): Motion {
  return { moving: new Uint8Array(size), facing: new Int8Array(size) };
}
