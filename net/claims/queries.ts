/**
 * The REST queries on claims as the database holds them (game_claims, game_claim_members): the
 * rectangle, own-claims and trusts reads that refresh.ts makes, the columns read and the limits.
 * A row read has the shape a `claims` message carries (protocol/claim-changes.ts).
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { TileRect } from '../../components/claims.js';
import type { ClaimRow } from '../../protocol/claim-changes.js';
import { CLAIM_MAX_TILES, CLAIM_MIN_TILES, CLAIM_TILES_MAX } from '../../protocol/rules.js';

/** Most claims read around the player at once. */
export const CLAIMS_PER_READ = 300;
/** Most of the player's own claims read: as many of the smallest as the largest budget holds, 400. */
export const OWN_CLAIMS_READ = CLAIM_TILES_MAX / (CLAIM_MIN_TILES * CLAIM_MIN_TILES);
/** Widest claim: a claim overlapping a rectangle starts at most this many tiles left of it. */
const CLAIM_MAX_SPAN = CLAIM_MAX_TILES - 1;
/** The columns of a claim read. */
export const CLAIM_COLUMNS = 'id,owner_id,owner_name,x1,y1,x2,y2';
/** Most values in one `in.(...)` filter the embedded server serves (docs/rest-bounds.md, TS102). */
export const IN_LIST_MAX = 100;

/** `list` in consecutive slices of at most `size`. */
export function slices<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** The claims overlapping `area`, at most `limit` (the index on x1 bounds the scan: no claim is wider than 100 tiles). */
export async function readClaimsIn(db: SupabaseClient, area: TileRect, limit = CLAIMS_PER_READ): Promise<ClaimRow[]> {
  const { data, error } = await db.from('game_claims').select(CLAIM_COLUMNS)
    .gte('x1', area.x1 - CLAIM_MAX_SPAN).lte('x1', area.x2).gte('x2', area.x1)
    .lte('y1', area.y2).gte('y2', area.y1)
    .order('x1').limit(limit);
  if (error) throw error;
  return data as ClaimRow[];
}

/** The claims of player `owner`, wherever they are (at most OWN_CLAIMS_READ). */
export async function readOwnClaims(db: SupabaseClient, owner: string): Promise<ClaimRow[]> {
  const { data, error } = await db.from('game_claims').select(CLAIM_COLUMNS).eq('owner_id', owner).limit(OWN_CLAIMS_READ);
  if (error) throw error;
  return data as ClaimRow[];
}

/** The ids of the claims player `playerId` is trusted on, wherever they are (at most `limit`). */
export async function readTrusts(db: SupabaseClient, playerId: string, limit: number): Promise<string[]> {
  const { data, error } = await db.from('game_claim_members').select('claim_id').eq('player_id', playerId).limit(limit);
  if (error) throw error;
  return (data as { claim_id: string }[]).map((row) => row.claim_id);
}
