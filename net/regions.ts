/**
 * Interest management for live positions: the world is cut into square regions, each with
 * its own broadcast channel. A client listens to the 3x3 regions around it, so it hears the
 * players near it and not the whole world.
 */
import { TILE_SIZE_PX } from './constants.js';

/** Side of a region in tiles. 32 tiles = 1024 px, wider than the 800 px view, so the 3x3
 * block always covers everything on screen plus a margin. */
export const REGION_TILES = 32;
const REGION_PX = REGION_TILES * TILE_SIZE_PX;

/** Region coordinates of a pixel position. */
export function regionOf(x: number, y: number): { rx: number; ry: number } {
  return { rx: Math.floor(x / REGION_PX), ry: Math.floor(y / REGION_PX) };
}

/** The channel name of one region. */
export function regionTopic(rx: number, ry: number): string {
  return `region:${regionKey(rx, ry)}`;
}

/** The channel names of the 3x3 regions around a pixel position, the player's own first. */
export function topicsAround(x: number, y: number): string[] {
  const { rx, ry } = regionOf(x, y);
  const topics = [regionTopic(rx, ry)];
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      if (dx !== 0 || dy !== 0) topics.push(regionTopic(rx + dx, ry + dy));
    }
  }
  return topics;
}

/** The presence-row name of a region, as the generated `game_players.region` column spells it. */
export function regionKey(rx: number, ry: number): string {
  return `${rx}:${ry}`;
}

/** The presence-row names of the 3x3 regions around a pixel position, the player's own first. */
export function regionKeysAround(x: number, y: number): string[] {
  return topicsAround(x, y).map((topic) => topic.slice('region:'.length));
}

/** Whether pixel position (x, y) lies in the 3x3 regions around (cx, cy). */
export function isNear(cx: number, cy: number, x: number, y: number): boolean {
  const a = regionOf(cx, cy);
  const b = regionOf(x, y);
  return Math.abs(a.rx - b.rx) <= 1 && Math.abs(a.ry - b.ry) <= 1;
}
