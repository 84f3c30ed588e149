import { asBuffer, query } from 'bitecs';
import { RESPAWN_MS } from '../components/constants.js';
import { KIND, type GameWorld } from '../components/world.js';

function respawn(world: GameWorld, e: number): void {
  const { transform: t, vitals: v } = world;
  t.x[e] = t.y[e] = t.prevX[e] = t.prevY[e] = 0;
  v.health[e] = v.maxHealth[e]!;
  v.defeated[e] = 0;
}

function defeatAll(
  eids: Uint32Array, health: Float32Array, defeated: Uint8Array, respawnAt: Float64Array, kind: Uint8Array,
  vx: Float32Array, vy: Float32Array, swinging: Uint8Array, due: number[], time: number,
): void {
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!;
    if (defeated[e]) {
      if (kind[e] === KIND.remote ? health[e]! > 0 : time >= respawnAt[e]!) due.push(e);
    } else if (health[e]! <= 0) {
      defeated[e] = 1;
      respawnAt[e] = time + RESPAWN_MS;
      vx[e] = vy[e] = 0;
      swinging[e] = 0;
    }
  }
}

const due: number[] = [];

/**
 * Defeats players whose health reached 0 and, RESPAWN_MS later, brings them back at spawn with
 * full health. Remote players follow their own client: they count as back once their health is.
 */
export function updateHealth(world: GameWorld): void {
  const { vitals: v, transform: t } = world;
  const eids = query(world, [world.Player], asBuffer) as Uint32Array;
  defeatAll(eids, v.health, v.defeated, v.respawnAt, world.kind, t.vx, t.vy, world.combat.swinging, due, world.time);
  for (const e of due) {
    if (world.kind[e] === KIND.remote) v.defeated[e] = 0;
    else respawn(world, e);
  }
  due.length = 0;
}
