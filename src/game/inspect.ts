/** The read-only inspection handle `window.__tessera`, for tests and debugging. */
import { asBuffer, query } from 'bitecs';
import { claimAt } from '../../components/claims.js';
import { readLocalPlayer } from '../../components/players.js';
import { blockAt } from '../../components/tiles.js';
import { xOf, yOf } from '../../components/transform.js';
import type { GameWorld } from '../../components/world.js';
import type { NameLayout } from '../../systems/draw/name-labels.js';

/** What `window.__tessera` offers; every call returns fresh copies. */
export interface TesseraInspector {
  localPlayer(): {
    id: string; name: string; x: number; y: number; health: number; maxHealth: number; level: number;
    zone: 'safe' | 'pvp'; biome: string;
  } | null;
  remotePlayers(): { id: string; name: string; x: number; y: number; health: number }[];
  tileAt(tileX: number, tileY: number): string | null;
  voiceHeard(): number;
  /** The owner of the claim covering tile (x, y) among the claims the client knows, or null. */
  claimAt(tileX: number, tileY: number): { owner_id: string; owner_name: string } | null;
  /** The name labels of the last drawn frame, in drawing order: their text and canvas box. */
  nameLabels(): { name: string; x: number; y: number; width: number; height: number }[];
}

declare global {
  interface Window {
    __tessera?: TesseraInspector;
  }
}

/** An inspector reading `world`, and the name labels laid out in `names` when given. */
export function createInspector(world: GameWorld, names?: NameLayout): TesseraInspector {
  return Object.freeze({
    localPlayer() {
      const p = readLocalPlayer(world);
      return p && { id: p.id, name: p.name, x: p.x, y: p.y, health: p.health, maxHealth: p.maxHealth, level: p.level, zone: p.zone, biome: p.biome };
    },
    remotePlayers() {
      return Array.from(query(world, [world.Remote], asBuffer), (e) => ({
        id: world.ids[e]!,
        name: world.names[e]!,
        x: xOf(world.transform, e),
        y: yOf(world.transform, e),
        health: world.vitals.health[e]!,
      }));
    },
    tileAt: (tileX: number, tileY: number) => blockAt(world.tiles, tileX, tileY),
    voiceHeard: () => world.voiceHeard,
    claimAt(tileX: number, tileY: number) {
      const claim = claimAt(world.claims.list, tileX, tileY);
      return claim && { owner_id: claim.ownerId, owner_name: claim.ownerName };
    },
    nameLabels() {
      if (!names) return [];
      return Array.from(names.order.subarray(0, names.drawn), (i) => ({
        name: world.names[names.eid[i]!] || 'Player', x: names.x[i]!, y: names.y[i]!, width: names.w[i]!, height: names.h[i]!,
      }));
    },
  });
}
