import type { HudFields } from '../components/hud.js';
import { asBuffer, query } from 'bitecs';
import { claimAt } from '../components/claims.js';
import { RESPAWN_MS, TILE_SIZE } from '../components/constants.js';
import { countPlayersNear } from '../components/proximity.js';
import { BIOME_LABELS, biomeAt } from '../components/terrain.js';
import { xOf, yOf } from '../components/transform.js';
import type { GameWorld } from '../components/world.js';

function publish<K extends keyof HudFields>(world: GameWorld, key: K, value: HudFields[K]): void {
  if (Object.is(world.published[key], value)) return;
  world.published[key] = value;
  world.hud.set(key, value);
}

/** The whole seconds until defeated player `eid` respawns: at least 1, at most the respawn delay. */
function respawnSeconds(world: GameWorld, eid: number): number {
  const seconds = Math.max(1, Math.ceil((world.vitals.respawnAt[eid]! - world.time) / 1000));
  return Math.min(seconds, RESPAWN_MS / 1000);
}

/** Publishes the local player's HUD values, each only when it changed, and flushes pending toasts. */
export function syncHud(world: GameWorld): void {
  for (const toast of world.toasts.splice(0, world.toasts.length)) world.hud.toast(toast);
  const eid = world.local;
  if (!eid) return;
  const { transform: t, vitals: v, combat: c } = world;
  const tileX = Math.floor(xOf(t, eid) / TILE_SIZE);
  const tileY = Math.floor(yOf(t, eid) / TILE_SIZE);
  if (world.published.tileX !== tileX || world.published.tileY !== tileY || world.published.biome === undefined) {
    publish(world, 'biome', BIOME_LABELS[biomeAt(tileX, tileY, world.seed)]);
  }
  publish(world, 'tileX', tileX);
  publish(world, 'tileY', tileY);
  publish(world, 'zone', c.safe[eid] ? 'safe' : 'pvp');
  publish(world, 'health', v.health[eid]!);
  publish(world, 'maxHealth', v.maxHealth[eid]!);
  publish(world, 'level', v.level[eid]!);
  publish(world, 'defeated', v.defeated[eid] === 1);
  publish(world, 'respawnIn', v.defeated[eid] ? respawnSeconds(world, eid) : 0);
  publish(world, 'name', world.names[eid] ?? '');
  publish(world, 'selectedSlot', world.inventory.selectedSlot);
  publish(world, 'inventoryVersion', world.inventory.version);
  publish(world, 'playersInRange', v.defeated[eid] ? 0 : countPlayersNear(world, eid));
  publish(world, 'remotePlayers', query(world, [world.Remote], asBuffer).length);
  publish(world, 'restorable', world.restorable.length);
  publish(world, 'undoable', world.history.undo.length);
  publish(world, 'redoable', world.history.redo.length);
  publish(world, 'claimsVersion', world.claims.version);
  const claim = claimAt(world.claims.list, tileX, tileY);
  publish(world, 'claimedBy', claim && claim.ownerId !== world.ids[eid] ? claim.ownerName : '');
  const draft = world.claims.tool.draft;
  publish(world, 'claimDraft', draft ? `${draft.x1},${draft.y1},${draft.x2},${draft.y2}` : '');
}
