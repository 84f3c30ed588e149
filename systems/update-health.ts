import { RESPAWN_MS } from '../components/constants.js';
import { markForIndex } from '../components/grid.js';
import { noteHealth } from '../components/players.js';
import { KIND, type GameWorld } from '../components/world.js';

function respawn(world: GameWorld, e: number): void {
  const { transform: t, vitals: v } = world;
  t.x[e] = t.y[e] = t.prevX[e] = t.prevY[e] = 0;
  v.health[e] = v.maxHealth[e]!;
  v.defeated[e] = 0;
  noteHealth(world, e);
}

const due: number[] = [];

/**
 * Defeats players whose health reached 0 and, RESPAWN_MS later, brings them back at spawn with
 * full health. Remote players follow their own client: they count as back once their health is.
 * Only the players in `world.hurt` and `world.downed` are looked at.
 */
export function updateHealth(world: GameWorld): void {
  const { vitals: v, kind, time } = world;
  const { health, defeated, respawnAt } = v;
  const downed = world.downed;
  let waiting = 0;
  for (let i = 0; i < downed.length; i++) {
    const e = downed[i]!;
    if (kind[e] === KIND.remote ? health[e]! > 0 : time >= respawnAt[e]!) due.push(e);
    else downed[waiting++] = e;
  }
  downed.length = waiting;
  const hurt = world.hurt;
  for (let i = 0; i < hurt.length; i++) {
    const e = hurt[i]!;
    if (defeated[e] || !(health[e]! <= 0) || world.ids[e] === undefined) continue;
    defeated[e] = 1;
    respawnAt[e] = time + RESPAWN_MS;
    world.transform.vx[e] = world.transform.vy[e] = 0;
    world.combat.swinging[e] = 0;
    downed.push(e);
    markForIndex(world.grid, e);
  }
  hurt.length = 0;
  for (const e of due) {
    markForIndex(world.grid, e);
    if (kind[e] === KIND.remote) v.defeated[e] = 0;
    else respawn(world, e);
  }
  due.length = 0;
}
