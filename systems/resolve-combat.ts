import { ATTACK_DAMAGE, DAMAGE_COOLDOWN_MS, TILE_SIZE } from '../components/constants.js';
import { createEidList, pushEid } from '../components/eid-list.js';
import { applyDamage } from '../components/players.js';
import { nearestTargets } from '../components/proximity.js';
import { pushSound } from '../components/sounds.js';
import { xOf, yOf } from '../components/transform.js';
import { KIND, type GameWorld } from '../components/world.js';

function strike(world: GameWorld, attacker: number, victim: number): void {
  const combat = world.combat;
  if (!victim) return;
  if (world.kind[victim] !== KIND.remote) {
    if (applyDamage(world, victim, ATTACK_DAMAGE) && attacker === world.local) pushSound(world, 'hit');
    return;
  }
  // A remote victim's health belongs to its own client: record the cooldown and tell the server.
  if (world.kind[attacker] !== KIND.local || world.time - combat.lastDamage[victim]! < DAMAGE_COOLDOWN_MS) return;
  combat.lastDamage[victim] = world.time;
  pushSound(world, 'hit');
  world.queues.outbox.push({
    kind: 'attack',
    victimId: world.ids[victim]!,
    victimName: world.names[victim]!,
    damage: ATTACK_DAMAGE,
    victimTileX: Math.floor(xOf(world.transform, victim) / TILE_SIZE),
    victimTileY: Math.floor(yOf(world.transform, victim) / TILE_SIZE),
    attackerX: Math.round(xOf(world.transform, attacker)),
    attackerY: Math.round(yOf(world.transform, attacker)),
  });
}

const strikers = createEidList();
const targets = createEidList();

/**
 * Resolves the swings started this step: each hits the nearest other player within 64 px
 * unless the attacker or the victim stands in the safe zone; the victim takes 25 damage at most
 * once per 1000 ms. A hit on a remote player is queued for the server as an attack. Hits change
 * only health and cooldowns, never who is nearest, so every swing's target is found first, in
 * one batch, and the hits are then applied in the order the swings started.
 */
export function resolveCombat(world: GameWorld): void {
  const attackers = world.attackers;
  if (attackers.length === 0) return;
  const { defeated } = world.vitals;
  const { safe } = world.combat;
  strikers.length = 0;
  for (let i = 0; i < attackers.length; i++) {
    const a = attackers.eids[i]!;
    if (!defeated[a] && !safe[a]) pushEid(strikers, a);
  }
  attackers.length = 0;
  nearestTargets(world, strikers, targets);
  for (let i = 0; i < strikers.length; i++) strike(world, strikers.eids[i]!, targets.eids[i]!);
}
