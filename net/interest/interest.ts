/**
 * The local player's interest: where the session stands in the world, kept once. The engine's
 * position comes in once a step ({@link Interest.move}, from net/session-sync.ts, and once at
 * the start from net/session-entry.ts); the interest works out its centre region with the slack
 * of {@link interestCentre} (net/interest/centre.ts) and tells its followers:
 *
 *   * every move, to those following the position: the block sync (net/blocks/blocks.ts), which
 *     holds the chunks and region channels the view and its margin touch; the land claims are
 *     heard on those channels and read again as they join (net/claims/claims.ts);
 *   * each move of the centre to another region, and the first, to those following the 3x3
 *     regions around it: presence (net/presence/presence.ts: the rows followed and a heartbeat)
 *     and the live positions (net/poses/poses.ts: the `region:` channels heard and the one sent on).
 *
 * Nothing here touches the network; the followers do.
 */
import type { Region } from '../../protocol/geometry.js';
import { interestCentre, regionKeysAround, topicsAround } from './centre.js';

/** The 3x3 regions around the interest centre, as each follower names them. */
export interface InterestArea {
  /** The centre region: the player sends its poses on its channel. */
  centre: Region;
  /** The region topics (`region:rx:ry`) of the 3x3, the centre's first. */
  topics: string[];
  /** The presence-row names (`game_players.region`) of the 3x3, the centre's first. */
  keys: string[];
  /** Whether this is the session's first centre (the start: no heartbeat of its own). */
  first: boolean;
}

/** One interest, moved once a step. */
export interface Interest {
  /** The player is at (x, y) pixels: followers of the position are told, then, if the centre moved, followers of the area. */
  move(x: number, y: number): void;
  /** The area around the centre, or null before the first move. */
  area(): InterestArea | null;
  /** Calls `listener` with every position moved to; returns the unsubscribe. */
  onMove(listener: (x: number, y: number) => void): () => void;
  /**
   * Calls `listener` with the area each time the centre moves to another region, and at once
   * with the area as it is when there is one; returns the unsubscribe.
   */
  onArea(listener: (area: InterestArea) => void): () => void;
}

/** An interest with no centre until its first move. */
export function createInterest(): Interest {
  let area: InterestArea | null = null;
  const moveListeners = new Set<(x: number, y: number) => void>();
  const areaListeners = new Set<(area: InterestArea) => void>();
  return {
    move(x, y) {
      for (const listener of moveListeners) listener(x, y);
      const centre = interestCentre(area?.centre ?? null, x, y);
      if (centre === area?.centre) return;
      area = { centre, topics: topicsAround(centre), keys: regionKeysAround(centre), first: area === null };
      for (const listener of areaListeners) listener(area);
    },
    area: () => area,
    onMove(listener) {
      moveListeners.add(listener);
      return () => moveListeners.delete(listener);
    },
    onArea(listener) {
      areaListeners.add(listener);
      if (area) listener(area);
      return () => areaListeners.delete(listener);
    },
  };
}
