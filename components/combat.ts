/** Health, level, sword and zone state: structure-of-arrays stores indexed by eid. */

/** Health, level and the defeated state (respawnAt is in world ms). */
export interface Vitals {
  health: Float32Array;
  maxHealth: Float32Array;
  level: Uint16Array;
  defeated: Uint8Array;
  respawnAt: Float64Array;
}

/** Sword swing state, damage cooldown and zone (1 = inside the safe spawn area). Times are world ms. */
export interface Combat {
  swinging: Uint8Array;
  swingStart: Float64Array;
  lastDamage: Float64Array;
  safe: Uint8Array;
}

/** Vitals arrays for `size` eids. */
export function createVitals(size: number): Vitals {
  return {
    health: new Float32Array(size),
    maxHealth: new Float32Array(size),
    level: new Uint16Array(size),
    defeated: new Uint8Array(size),
    respawnAt: new Float64Array(size),
  };
}

/** Combat arrays for `size` eids. */
export function createCombat(size: number): Combat {
  return {
    swinging: new Uint8Array(size),
    swingStart: new Float64Array(size),
    lastDamage: new Float64Array(size),
    safe: new Uint8Array(size),
  };
}
