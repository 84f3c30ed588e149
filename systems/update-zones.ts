import { asBuffer, query } from 'bitecs';
import { SPAWN_RADIUS, TILE_SIZE } from '../components/constants.js';
import type { GameWorld } from '../components/world.js';

// Tiles -R..R span pixels [-R*32, (R+1)*32): the safe zone as a pixel interval, no floor needed.
const SAFE_MIN = -SPAWN_RADIUS * TILE_SIZE;
const SAFE_END = (SPAWN_RADIUS + 1) * TILE_SIZE;

function zoneAll(eids: Uint32Array, x: Float32Array, y: Float32Array, safe: Uint8Array): void {
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!;
    const px = x[e]!;
    const py = y[e]!;
    safe[e] = px >= SAFE_MIN && px < SAFE_END && py >= SAFE_MIN && py < SAFE_END ? 1 : 0;
  }
}

/** Marks each player safe when its tile is in the spawn area (|tileX| <= 2 and |tileY| <= 2), PvP otherwise. */
export function updateZones(world: GameWorld): void {
  zoneAll(query(world, [world.Player], asBuffer) as Uint32Array, world.transform.x, world.transform.y, world.combat.safe);
}
