/**
 * Claims as the database holds them (game_claims, game_claim_members): the rows and `claims`
 * messages as read, and the reads the claims follower makes.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { TileRect } from '../components/claims.js';

/** Most claims read around the player at once. */
export const CLAIMS_PER_READ = 300;
/** Most of the player's own claims read (the largest budget holds 400 of the smallest). */
export const OWN_CLAIMS_READ = 400;
/** Widest claim: a claim overlapping a rectangle starts at most this many tiles left of it. */
const CLAIM_MAX_SPAN = 99;
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

/** A game_claims row as read. */
export interface ClaimRow extends TileRect {
  id: string;
  owner_id: string;
  owner_name: string;
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

/** A trust of a player on a claim, as a `claims` message carries it. */
export interface ClaimTrust {
  claim_id: string;
  player_id: string;
}

/** A `claims` message heard on a region topic: claims made or gone, trusts given or withdrawn. */
export interface ClaimChanges {
  made: ClaimRow[];
  gone: ClaimRow[];
  trusted: ClaimTrust[];
  untrusted: ClaimTrust[];
}

const isText = (v: unknown): v is string => typeof v === 'string';
const isClaimRow = (v: unknown): v is ClaimRow => {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return isText(r.id) && isText(r.owner_id) && isText(r.owner_name) && [r.x1, r.y1, r.x2, r.y2].every((n) => Number.isInteger(n));
};
const isClaimTrust = (v: unknown): v is ClaimTrust =>
  typeof v === 'object' && v !== null && isText((v as Record<string, unknown>).claim_id) && isText((v as Record<string, unknown>).player_id);

/** Reads a `claims` payload ({made|gone: [claim], trusted|untrusted: [{claim_id, player_id}]}); malformed entries are skipped. */
export function parseClaimChanges(payload: unknown): ClaimChanges {
  const field = (name: string): unknown[] => {
    const value = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>)[name] : undefined;
    return Array.isArray(value) ? value : [];
  };
  const claim = (v: ClaimRow): ClaimRow => ({ id: v.id, owner_id: v.owner_id, owner_name: v.owner_name, x1: v.x1, y1: v.y1, x2: v.x2, y2: v.y2 });
  const trust = (v: ClaimTrust): ClaimTrust => ({ claim_id: v.claim_id, player_id: v.player_id });
  return {
    made: field('made').filter(isClaimRow).map(claim),
    gone: field('gone').filter(isClaimRow).map(claim),
    trusted: field('trusted').filter(isClaimTrust).map(trust),
    untrusted: field('untrusted').filter(isClaimTrust).map(trust),
  };
}
