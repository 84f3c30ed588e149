/**
 * The arithmetic of interest management: a client listens to the region topics
 * (protocol/topics.ts) of the 3x3 regions around its centre region, so it hears the players near
 * it and not the whole world. The centre follows the player with some slack
 * ({@link INTEREST_SLACK_PX}), so walking to and fro over a border does not leave and rejoin
 * channels at every crossing. Regions and their names are the protocol's (protocol/geometry.ts).
 * The session keeps its centre in one place, interest.ts, the only module of the product that
 * imports this one (the load bots of test/support/load/ reproduce the client with it).
 */
import { REGION_PX, regionName, regionOf, regionsAround, type Region } from '../../protocol/geometry.js';
import { regionTopic } from '../../protocol/topics.js';

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

/** The region topics of the 3x3 regions around `centre`, the centre's first. */
export function topicsAround(centre: Region): string[] {
  return regionsAround(centre).map(regionTopic);
}

/** The presence-row names (the generated `game_players.region` column) of the 3x3 regions around `centre`, the centre's first. */
export function regionKeysAround(centre: Region): string[] {
  return regionsAround(centre).map(regionName);
}
