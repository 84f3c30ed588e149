/**
 * Sound effects the engine asks for. Systems push `SoundEvent`s into `world.sounds`; the page
 * drains the queue once per frame and synthesises them (src/audio/effects.ts). Systems never
 * touch audio themselves.
 */
import { TILE_SIZE } from './constants.js';
import type { BlockFamily, SoundKind } from './sound-types.js';
import { xOf, yOf } from './transform.js';
import type { GameWorld } from './world.js';

/** The voice range (docs/game-rules.md §9): voice clips and effects farther away than this many tiles are not heard. */
export const VOICE_RANGE_TILES = 500;
/** Effects kept for the page at most; a page that stopped draining (hidden tab) drops the oldest. */
export const SOUND_QUEUE_LIMIT = 64;
/** Steps between two footsteps of a walking player: 288 ms, about two steps per bob cycle. */
export const FOOTSTEP_STEPS = 18;

const FAMILIES: Readonly<Record<string, BlockFamily>> = Object.freeze({
  stone: 'stone', cobblestone: 'stone', marble: 'stone', obsidian: 'stone', brick: 'stone', coal: 'stone',
  wood: 'wood',
  dirt: 'earth', sand: 'earth',
  gold: 'metal', iron: 'metal', copper: 'metal',
  diamond: 'gem', emerald: 'gem', redstone: 'gem',
  glass: 'glass',
});

/** The sound family of a block type; unknown types sound like dirt, as they are drawn like dirt. */
export function blockFamily(blockType: string): BlockFamily {
  return FAMILIES[blockType] ?? 'earth';
}

/** Volume of something `distanceTiles` away within the voice range: max(0.1, 1 - d/500). */
export function proximityVolume(distanceTiles: number): number {
  return Math.max(0.1, 1 - distanceTiles / VOICE_RANGE_TILES);
}

/**
 * The law of hearing, for voice clips and effects alike: the volume of a sound (dx, dy) tiles
 * from the listener's tile, or null beyond the voice range.
 */
export function volumeAtOffset(dx: number, dy: number): number | null {
  const distance = Math.hypot(dx, dy);
  return distance <= VOICE_RANGE_TILES ? proximityVolume(distance) : null;
}

/** Volume of an effect at tile (tileX, tileY) for the local player, or null when out of range or nobody listens. */
export function volumeAtTile(world: GameWorld, tileX: number, tileY: number): number | null {
  const eid = world.local;
  if (!eid) return null;
  const dx = tileX - Math.floor(xOf(world.transform, eid) / TILE_SIZE);
  const dy = tileY - Math.floor(yOf(world.transform, eid) / TILE_SIZE);
  return volumeAtOffset(dx, dy);
}

/** Queues an effect; `volume` null (out of range) queues nothing. */
export function pushSound(world: GameWorld, kind: SoundKind, volume: number | null = 1, blockType: string | null = null): void {
  if (volume === null) return;
  const sounds = world.sounds;
  if (sounds.length >= SOUND_QUEUE_LIMIT) sounds.shift();
  sounds.push({ kind, family: blockType === null ? null : blockFamily(blockType), volume });
}
