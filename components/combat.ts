/** Health, level, sword and zone state: structure-of-arrays stores indexed by eid. */
import { SPAWN_RADIUS, TILE_SIZE } from './constants.js';

// Tiles -R..R span pixels [-R*32, (R+1)*32): the safe zone as a pixel interval, no floor needed.
/** Lowest pixel coordinate (x and y) inside the safe spawn area. */
export const SAFE_MIN = -SPAWN_RADIUS * TILE_SIZE;
/** First pixel coordinate (x and y) past the safe spawn area. */
export const SAFE_END = (SPAWN_RADIUS + 1) * TILE_SIZE;
// Module-local copies for safeAt, which runs for every player in the edge cells of the spawn area
// each step: optimized code reads an exported constant through its module cell, with checks, on
// every use, but folds a module-local constant into the code.
const LOW = SAFE_MIN;
const END = SAFE_END;

/** The zone at pixel (x, y): 1 when its tile is in the spawn area (|tileX| <= 2 and |tileY| <= 2), 0 (PvP) otherwise. */
export function safeAt(x: number, y: number): number {
  return x >= LOW && x < END && y >= LOW && y < END ? 1 : 0;
}

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

/**
 * Swings on show, oldest first: a ring of (eid, start time) pairs. Every swing lasts SWING_MS and
 * starts at the current world time, so the swings that end are always at the front.
 */
export interface SwingQueue {
  eid: Uint32Array;
  start: Float64Array;
  /** Ring index of the oldest entry. */
  head: number;
  length: number;
}

/** An empty queue. */
export function createSwingQueue(): SwingQueue {
  return { eid: new Uint32Array(64), start: new Float64Array(64), head: 0, length: 0 };
}

/** Appends the swing of `eid` that started at world time `start`; the ring doubles when full. */
export function pushSwing(q: SwingQueue, eid: number, start: number): void {
  let cap = q.eid.length;
  if (q.length === cap) {
    const eids = new Uint32Array(cap * 2);
    const starts = new Float64Array(cap * 2);
    for (let i = 0; i < q.length; i++) {
      const j = (q.head + i) & (cap - 1);
      eids[i] = q.eid[j]!;
      starts[i] = q.start[j]!;
    }
    q.eid = eids;
    q.start = starts;
    q.head = 0;
    cap *= 2;
  }
  const tail = (q.head + q.length) & (cap - 1);
  q.eid[tail] = eid;
  q.start[tail] = start;
  q.length++;
}
