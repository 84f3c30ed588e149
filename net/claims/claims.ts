/**
 * Land claims: the claims near the player (read by rectangle, then followed live), which of
 * them the player is trusted on, and the LAND panel's requests (claim, abandon, trust, untrust,
 * budget). The database decides every rule; the client only checks a claim's shape first, so
 * the player reads the reason at once.
 *
 * What is scoped to where the player is, and what is not:
 *   * reading: the claims overlapping the view plus CLAIM_MARGIN_TILES on every side, at most
 *     CLAIMS_PER_READ of them, read again when the player comes within half the margin of the
 *     edge of what was read; and the player's own claims and trusts, wherever they are;
 *   * live changes: the database sends each claim made or abandoned, and each trust given or
 *     withdrawn, on the region topics (`blocks:rx:ry`, event `claims`) its rectangle overlaps. The
 *     block sync (net/blocks/blocks.ts) holds those channels as the player walks and hands their `claims`
 *     messages to {@link ClaimsFollower.hear}, so claims cost no channel of their own; a claim
 *     outside the regions held is not heard. Each time a region's channel joins (first or again),
 *     {@link ClaimsFollower.regionJoined} reads that region's claims again, so what changed while
 *     it was not held is current on return. Changes heard while a read runs are applied again
 *     after it (each change sets a claim or a trust whole, so the latest wins).
 *
 * Where its changes come from: the REST queries on `game_claims` and `game_claim_members`
 * (queries.ts), and the `claims` messages that only the database sends, from statement triggers on
 * those two tables (supabase/migrations/20250706000000_claims_heard_by_region.sql), whoever made
 * the change (other clients, this one, the operators). They ride the block topics: the channel
 * (net/blocks/channels.ts) hands them to the block sync (net/blocks/blocks.ts), which
 * net/session-parts.ts wires to {@link ClaimsFollower.hear}, and the region joins likewise to
 * {@link ClaimsFollower.regionJoined}. The player's tile is read on a timer.
 *
 * Here the following; beside it: where claims are read (area.ts), the REST queries (queries.ts),
 * the claims known (known.ts), the refreshes of what is known (refresh.ts) with the messages held
 * while they run (held.ts), and the LAND panel's requests (requests.ts).
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../../components/network.js';
import { decodeClaimChanges } from '../../protocol/claim-changes.js';
import type { Region } from '../../protocol/geometry.js';
import { nearEdge } from './area.js';
import { createKnownClaims } from './known.js';
import { createClaimRefresh } from './refresh.js';
import { createClaimRequests, type ClaimRequests } from './requests.js';
import { gatherCalls } from '../schedule.js';

/** How often the player's position is compared with the area read. */
export const CLAIMS_CHECK_MS = 1000;
/** Regions joined within this many ms are read again together, in one request. */
export const REGION_READ_GATHER_MS = 50;

/** What the claims module needs. */
export interface ClaimsOptions {
  playerId: string;
  playerName(): string;
  /** The local player's tile. */
  tile(): { x: number; y: number };
  emit(event: NetEvent): void;
}

/** The claims side of the session: the LAND panel's requests, and the claims followed live. */
export interface ClaimsFollower extends ClaimRequests {
  /** Calls `listener` whenever a claim or a trust of the player's changes; returns the unsubscribe. */
  onOwnChange(listener: () => void): () => void;
  /** A `claims` message heard on a region topic held by the block sync. */
  hear(payload: unknown): void;
  /** A region's channel joined (first time or again): its claims are read again. */
  regionJoined(region: Region): void;
  /** Reads everything again (after a reconnect). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/** Reads the claims around the player and follows them live; see the module comment. */
export function followClaims(db: SupabaseClient, options: ClaimsOptions): ClaimsFollower {
  const me = options.playerId;
  const known = createKnownClaims(me, options.emit);
  const listeners = new Set<() => void>();
  let closed = false;
  const reads = createClaimRefresh(db, { playerId: me, tile: options.tile, known, closed: () => closed });
  const ownChanged = () => {
    for (const listener of listeners) listener();
  };
  /** Own changes heard live: the same change arrives once per region its claim overlaps, so they are told once. */
  const ownChangedSoon = gatherCalls(REGION_READ_GATHER_MS, () => {
    if (!closed) ownChanged();
  });
  const joinedRegions: Region[] = [];
  const readJoinedSoon = gatherCalls(REGION_READ_GATHER_MS, () => {
    if (!closed) void reads.readRegions(joinedRegions.splice(0));
  });

  void reads.load();
  const timer = setInterval(() => {
    const area = reads.area();
    if (area && nearEdge(area, options.tile())) void reads.load();
  }, CLAIMS_CHECK_MS);

  return {
    ...createClaimRequests(db, { playerId: me, playerName: options.playerName, known, ownChanged }),
    onOwnChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    hear(payload) {
      if (closed) return;
      const changes = decodeClaimChanges(payload);
      reads.hear(changes);
      const { shown, own } = known.apply(changes);
      if (shown) known.publish();
      if (own) ownChangedSoon.soon();
    },
    regionJoined(region) {
      if (closed) return;
      joinedRegions.push(region);
      readJoinedSoon.soon();
    },
    reload: () => reads.load(),
    async close() {
      closed = true;
      clearInterval(timer);
      readJoinedSoon.stop();
      ownChangedSoon.stop();
      listeners.clear();
    },
  };
}
