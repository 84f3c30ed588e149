/**
 * Refreshing the claims known from the database (queries.ts): around the player (the view plus a
 * margin, with the player's own claims and trusts wherever they are), and of regions whose
 * channels joined. Each replaces what it covers in the claims known, then applies again the live
 * messages heard while it ran.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { TileRect } from '../../components/claims.js';
import type { ClaimChanges } from '../../protocol/claim-changes.js';
import type { Region } from '../../protocol/geometry.js';
import { claimsArea, regionsRect } from './area.js';
import { createHeldClaimChanges } from './held.js';
import { CLAIMS_KEPT, type KnownClaims } from './known.js';
import { readClaimsIn, readOwnClaims, readTrusts } from './queries.js';

/** What the refreshes need. */
export interface ClaimRefreshOptions {
  playerId: string;
  /** The local player's tile. */
  tile(): { x: number; y: number };
  known: KnownClaims;
  /** Whether the follower closed: a read that ends after it changes nothing, and none is made again. */
  closed(): boolean;
}

/** The claim refreshes of one follower. */
export interface ClaimRefresh {
  /** Reads the area around the player, the player's own claims and its trusts, replacing all known (one read at a time). */
  load(): Promise<void>;
  /**
   * Reads again the claims of regions whose channels joined: those overlapping them replace what
   * was known there (unless the read was cut at its limit), and the player's trusts are read again.
   */
  readRegions(regions: Region[]): Promise<void>;
  /** A live message heard: held while a read runs, to be applied again after it. */
  hear(changes: ClaimChanges): void;
  /** The area the last `load` read, or null before it. */
  area(): TileRect | null;
}

/** The refreshes of player `options.playerId`'s claims into `options.known`. */
export function createClaimRefresh(db: SupabaseClient, options: ClaimRefreshOptions): ClaimRefresh {
  const { playerId: me, known } = options;
  let area: TileRect | null = null;
  let loading = false;
  const held = createHeldClaimChanges(() => {
    if (!options.closed()) void load();
  });
  /** Applies again the messages heard while reads ran, then shows the list. */
  const replayHeldAndPublish = () => {
    for (const changes of held.held()) known.apply(changes);
    known.publish();
  };

  async function load(): Promise<void> {
    if (loading) return;
    loading = true;
    try {
      await held.reading(async () => {
        const next = claimsArea(options.tile());
        const [near, own, trusts] = await Promise.all([readClaimsIn(db, next), readOwnClaims(db, me), readTrusts(db, me, CLAIMS_KEPT)]);
        if (options.closed()) return;
        area = next;
        known.replaceAll([...near, ...own], trusts);
        replayHeldAndPublish();
      });
    } catch (error) {
      console.error('reading claims failed:', error);
    } finally {
      loading = false;
    }
  }

  async function readRegions(regions: Region[]): Promise<void> {
    const rect = regionsRect(regions);
    try {
      await held.reading(async () => {
        const [rows, trusts] = await Promise.all([readClaimsIn(db, rect, CLAIMS_KEPT), readTrusts(db, me, CLAIMS_KEPT)]);
        if (options.closed()) return;
        known.replaceIn(rect, rows, trusts);
        replayHeldAndPublish();
      });
    } catch (error) {
      console.error('reading the claims of joined regions failed:', error);
    }
  }

  return { load, readRegions, hear: held.hear, area: () => area };
}
