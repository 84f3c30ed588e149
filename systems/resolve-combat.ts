import { ATTACK_DAMAGE, DAMAGE_COOLDOWN_MS, TILE_SIZE } from '../components/constants.js';
import { applyDamage } from '../components/players.js';
import { nearestTarget } from '../components/proximity.js';
import { KIND, type GameWorld } from '../components/world.js';

function strike(world: GameWorld, attacker: number): void {
  const { combat, vitals } = world;
  if (vitals.defeated[attacker] || combat.safe[attacker]) return;
  const victim = nearestTarget(world, attacker);
  if (!victim) return;
  if (world.kind[victim] !== KIND.remote) {
    applyDamage(world, victim, ATTACK_DAMAGE);
    return;
  }
  // A remote victim's health belongs to its own client: record the cooldown and tell the server.
  if (world.kind[attacker] !== KIND.local || world.time - combat.lastDamage[victim]! < DAMAGE_COOLDOWN_MS) return;
  combat.lastDamage[victim] = world.time;
  const { x, y } = world.transform;
  world.queues.outbox.push({
    kind: 'attack',
    victimId: world.ids[victim]!,
    victimName: world.names[victim]!,
    damage: ATTACK_DAMAGE,
    victimTileX: Math.floor(x[victim]! / TILE_SIZE),
    victimTileY: Math.floor(y[victim]! / TILE_SIZE),
  });
}

/**
 * Resolves the swings started this step: each hits the nearest other player within 64 px
 * unless the attacker or the victim stands in the safe zone; the victim takes 25 damage at most
 * once per 1000 ms. A hit on a remote player is queued for the server as an attack.
 */
export function resolveCombat(world: GameWorld): void {
  const attackers = world.attackers;
  for (let i = 0; i < attackers.length; i++) strike(world, attackers[i]!);
  attackers.length = 0;
}
