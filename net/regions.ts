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
  return `region:${rx}:${ry}`;
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
