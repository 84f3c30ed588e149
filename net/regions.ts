/**
 * Interest management for live positions: the world is cut into square regions, each with
 * its own broadcast channel. A client listens to the 3x3 regions around its centre region, so
 * it hears the players near it and not the whole world. The centre follows the player with some
 * slack ({@link INTEREST_SLACK_PX}), so walking to and fro over a border does not leave and
 * rejoin channels at every crossing.
 *
 * Regions are centred on multiples of their side: region (0, 0) is the square around spawn.
 * Everyone enters the world at spawn, so that is where crowds gather; centred there, a crowd
 * on one screen around spawn lies inside one region instead of across the corner of four, and
 * its players neither hear four channels nor move their interest centres as they mill about.
 */
import { TILE_SIZE } from '../components/constants.js';

/** Side of a region in tiles. 32 tiles = 1024 px, wider than the 800 px view, so the 3x3
 * block always covers everything on screen plus a margin. */
export const REGION_TILES = 32;
const REGION_PX = REGION_TILES * TILE_SIZE;
/** Half a region: region (rx, ry) spans [rx * REGION_PX - HALF_REGION_PX, rx * REGION_PX + HALF_REGION_PX). */
const HALF_REGION_PX = REGION_PX / 2;

/**
 * How far (px) a player may go past its centre region's edges before the centre moves to the
 * region it is in. Anything on screen stays inside the 3x3 regions around the centre while
 * this slack plus half the view (400 px) is under a region's side (1024 px). A player sends its
 * poses on its centre's channel, which every player that can see it listens to while twice the
 * slack plus half the view (912 px) is under a region's side.
 */
export const INTEREST_SLACK_PX = 256;

/** Region coordinates, as {@link regionOf} gives them. */
export interface Region {
  rx: number;
  ry: number;
}

/** Region coordinates of a pixel position (region (0, 0) is centred on spawn, see the module comment). */
export function regionOf(x: number, y: number): { rx: number; ry: number } {
  return { rx: Math.floor((x + HALF_REGION_PX) / REGION_PX), ry: Math.floor((y + HALF_REGION_PX) / REGION_PX) };
}

/** The channel name of one region. */
export function regionTopic(rx: number, ry: number): string {
  return `region:${regionKey(rx, ry)}`;
}

/**
 * The centre region of a player at (x, y) whose centre was `previous` (null at the start): the
 * same while the player is within {@link INTEREST_SLACK_PX} of it, else the region it is in.
 */
export function interestCentre(previous: Region | null, x: number, y: number): Region {
  if (previous) {
    const left = previous.rx * REGION_PX - HALF_REGION_PX - INTEREST_SLACK_PX;
    const top = previous.ry * REGION_PX - HALF_REGION_PX - INTEREST_SLACK_PX;
    const side = REGION_PX + 2 * INTEREST_SLACK_PX;
    if (x >= left && x < left + side && y >= top && y < top + side) return previous;
  }
  return regionOf(x, y);
}

/** The channel names of the 3x3 regions around `centre`, the centre's first. */
export function topicsAround({ rx, ry }: Region): string[] {
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

/** The presence-row names of the 3x3 regions around `centre`, the centre's first. */
export function regionKeysAround(centre: Region): string[] {
  return topicsAround(centre).map((topic) => topic.slice('region:'.length));
}
