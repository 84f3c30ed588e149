import { RESPAWN_MS } from '../components/constants.js';
import { markForIndex } from '../components/grid.js';
import { noteHealth } from '../components/players.js';
import { placeAt, setVelocity } from '../components/transform.js';
import { pushSound } from '../components/sounds.js';
import { KIND, type GameWorld } from '../components/world.js';

function respawn(world: GameWorld, e: number): void {
  const { transform: t, vitals: v } = world;
  placeAt(t, e, 0, 0);
  v.health[e] = v.maxHealth[e]!;
  v.defeated[e] = 0;
  noteHealth(world, e);
}

const due: number[] = [];

/**
 * Defeats players whose health reached 0 and, RESPAWN_MS later, brings them back at spawn with
 * full health. Remote players follow their own client: they count as back once their health is.
 * Only the players in `world.hurt`, the front of `world.downed` (whose respawn time came) and
 * `world.downedRemotes` are looked at.
 */
export function updateHealth(world: GameWorld): void {
  const { vitals: v, kind, time } = world;
  const { health, defeated, respawnAt } = v;
  const downed = world.downed;
  let ready = 0;
  while (ready < downed.length && time >= respawnAt[downed[ready]!]!) due.push(downed[ready++]!);
  if (ready > 0) downed.splice(0, ready);
  const remotes = world.downedRemotes;
  let waiting = 0;
  for (let i = 0; i < remotes.length; i++) {
    const e = remotes[i]!;
    if (health[e]! > 0) due.push(e);
    else remotes[waiting++] = e;
  }
  remotes.length = waiting;
  const hurt = world.hurt;
  for (let i = 0; i < hurt.length; i++) {
    const e = hurt[i]!;
    if (defeated[e] || !(health[e]! <= 0) || world.ids[e] === undefined) continue;
    defeated[e] = 1;
    if (e === world.local) pushSound(world, 'defeat');
    respawnAt[e] = time + RESPAWN_MS;
    setVelocity(world.transform, e, 0, 0);
    world.combat.swinging[e] = 0;
    (kind[e] === KIND.remote ? remotes : downed).push(e);
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
