/**
 * The `claims` event on a blocks topic (protocol/topics.ts): land claims made or abandoned and
 * trusts given or withdrawn, as the database sends them (`game_private.send_claim_changes`) on
 * every blocks topic a claim's rectangle overlaps. One message carries one kind of change:
 * `{"made": [claim, ...]}`, `{"gone": [...]}`, `{"trusted": [{claim_id, player_id}, ...]}` or
 * `{"untrusted": [...]}`, at most MAX_CLAIM_CHANGES_PER_MESSAGE entries.
 */

/** Most entries one `claims` message carries. */
export const MAX_CLAIM_CHANGES_PER_MESSAGE = 256;

/** A claim as a `claims` message (and a read of `game_claims`) carries it: corners inclusive, in tiles. */
export interface ClaimRow {
  id: string;
  owner_id: string;
  owner_name: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** A trust of a player on a claim. */
export interface ClaimTrust {
  claim_id: string;
  player_id: string;
}

/** The changes a `claims` message carries, every kind listed (empty when absent). */
export interface ClaimChanges {
  made: ClaimRow[];
  gone: ClaimRow[];
  trusted: ClaimTrust[];
  untrusted: ClaimTrust[];
}

/** The kinds of change, as a `claims` payload names them. */
export type ClaimChangeKind = keyof ClaimChanges;

/** The payload of one kind of change, as the database sends it. */
export function encodeClaimChanges<K extends ClaimChangeKind>(kind: K, entries: ClaimChanges[K]): Partial<ClaimChanges> {
  return { [kind]: entries };
}

const isText = (v: unknown): v is string => typeof v === 'string';
const isClaimRow = (v: unknown): v is ClaimRow => {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return isText(r.id) && isText(r.owner_id) && isText(r.owner_name) && [r.x1, r.y1, r.x2, r.y2].every((n) => Number.isInteger(n));
};
const isClaimTrust = (v: unknown): v is ClaimTrust =>
  typeof v === 'object' && v !== null && isText((v as Record<string, unknown>).claim_id) && isText((v as Record<string, unknown>).player_id);

/** Reads a `claims` payload; malformed entries and unknown fields are skipped. */
export function decodeClaimChanges(payload: unknown): ClaimChanges {
  const field = (name: ClaimChangeKind): unknown[] => {
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
