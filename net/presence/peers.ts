/**
 * The other players a client believes in: wallets with a fresh presence row, each with its last
 * known position. A live pose is admitted only from such a wallet and only within the movement
 * budget from that position, the budget the server applies to presence rows
 * (protocol/movement.ts, `game_private.movement_budget`), with MOVE_SLACK_PX of slack: the
 * server carries more to absorb heartbeats that arrive late, but poses are sent as the player
 * walks. Hosted Supabase does not stamp broadcasts with their sender, so this is what stops a
 * pose carrying an invented or another wallet's id from walking a figure anywhere it could not
 * walk.
 */
import { MOVE_PX_PER_MS, MOVE_SLACK_PX } from '../../protocol/movement.js';

/**
 * How late a presence row may arrive after a pose heard since: a row is the position of its
 * heartbeat, and under load it reaches the other players after the poses that followed it.
 */
export const ROW_LAG_MS = 1000;

interface Peer {
  /** When its presence was last confirmed (ms). */
  seenAt: number;
  x: number;
  y: number;
  /** When (x, y) was last confirmed (ms). */
  posAt: number;
}

/** The known players; see the module comment. */
export interface Peers {
  /**
   * A fresh presence row of `id` placed it at (x, y) at time `at` (ms). The last known position
   * becomes the row's, unless a pose heard within ROW_LAG_MS is where the player could have
   * walked from the row in that time: the row is then an earlier point of the same walk.
   */
  seen(id: string, x: number, y: number, at: number): void;
  /** Forgets `id`; true when it was known. */
  forget(id: string): boolean;
  has(id: string): boolean;
  /** Whether a pose of `id` at (x, y), heard at `at`, is believable; when it is, it becomes the last known position. */
  admit(id: string, x: number, y: number, at: number): boolean;
  /** The last known position of `id`, or undefined. */
  position(id: string): { x: number; y: number } | undefined;
  /** Ids whose presence was last confirmed before `cutoff`. */
  staleBefore(cutoff: number): string[];
  ids(): string[];
}

/** An empty set of peers. */
export function createPeers(): Peers {
  const peers = new Map<string, Peer>();
  return {
    seen(id, x, y, at) {
      const peer = peers.get(id);
      if (peer && at - peer.posAt <= ROW_LAG_MS && Math.hypot(x - peer.x, y - peer.y) <= MOVE_SLACK_PX + MOVE_PX_PER_MS * ROW_LAG_MS) {
        peer.seenAt = at;
        return;
      }
      peers.set(id, { seenAt: at, x, y, posAt: at });
    },
    forget: (id) => peers.delete(id),
    has: (id) => peers.has(id),
    admit(id, x, y, at) {
      const peer = peers.get(id);
      if (!peer) return false;
      const budget = MOVE_SLACK_PX + MOVE_PX_PER_MS * Math.max(0, at - peer.posAt);
      if (Math.hypot(x - peer.x, y - peer.y) > budget) return false;
      peer.x = x;
      peer.y = y;
      peer.posAt = at;
      return true;
    },
    position(id) {
      const peer = peers.get(id);
      return peer && { x: peer.x, y: peer.y };
    },
    staleBefore(cutoff) {
      const stale: string[] = [];
      for (const [id, peer] of peers) if (peer.seenAt < cutoff) stale.push(id);
      return stale;
    },
    ids: () => [...peers.keys()],
  };
}
