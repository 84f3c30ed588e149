/**
 * The LAND panel's requests: claim, abandon, trust, untrust, the budget and the player's own
 * claims with their members. The database decides every rule; the client only checks a claim's
 * shape first, so the player reads the reason at once.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { claimShapeProblem, type Claim, type TileRect } from '../../components/claims.js';
import { nameKey } from '../../components/text.js';
import type { ClaimRow } from '../../protocol/claim-changes.js';
import type { KnownClaims } from './known.js';
import { CLAIM_COLUMNS, IN_LIST_MAX, slices } from './queries.js';

/** A claim-tile budget: { total, used, available }. */
export interface ClaimBudget {
  total: number;
  used: number;
  available: number;
}

/** A player trusted on a claim. */
export interface ClaimMember {
  playerId: string;
  name: string;
}

/** One of the player's own claims with the players it trusts. */
export interface OwnClaim {
  claim: Claim;
  members: ClaimMember[];
}

/** The LAND panel's requests; each change resolves to null, or to the sentence saying why not. */
export interface ClaimRequests {
  /** Claims `rect`. */
  create(rect: TileRect): Promise<string | null>;
  /** Abandons the player's claim `id`, returning its tiles. */
  abandon(id: string): Promise<string | null>;
  /** Trusts the player called `name` on claim `claimId`. */
  trust(claimId: string, name: string): Promise<string | null>;
  /** Stops trusting `playerId` on claim `claimId`. */
  untrust(claimId: string, playerId: string): Promise<string | null>;
  budget(): Promise<ClaimBudget>;
  /** The player's own claims with their members, read now. */
  mine(): Promise<OwnClaim[]>;
}

/** What the requests need. */
export interface ClaimRequestOptions {
  playerId: string;
  playerName(): string;
  /** The claims known, updated at once by the player's own changes. */
  known: KnownClaims;
  /** Tells the LAND panel that the player's claims or trusts changed. */
  ownChanged(): void;
}

const refusal = (error: { message?: string } | null) => (error ? error.message || 'The server refused the change.' : null);

/** The members of claims `ids`, by claim id, as player ids. */
async function readMembers(db: SupabaseClient, ids: readonly string[]): Promise<Map<string, string[]>> {
  const members = new Map<string, string[]>();
  for (const some of slices(ids, IN_LIST_MAX)) {
    const { data, error } = await db.from('game_claim_members').select('claim_id,player_id').in('claim_id', some).limit(50 * some.length);
    if (error) throw error;
    for (const row of data as { claim_id: string; player_id: string }[]) members.set(row.claim_id, [...(members.get(row.claim_id) ?? []), row.player_id]);
  }
  return members;
}

/** The names players `ids` hold, by player id. */
async function readNames(db: SupabaseClient, ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const some of slices(ids, IN_LIST_MAX)) {
    const { data, error } = await db.from('game_held_names').select('player_id,player_name').in('player_id', some).limit(some.length);
    if (error) throw error;
    for (const row of data as { player_id: string; player_name: string }[]) names.set(row.player_id, row.player_name);
  }
  return names;
}

/** The player's own claims `own` with their members and the members' names, read now. */
async function readOwnWithMembers(db: SupabaseClient, own: readonly ClaimRow[]): Promise<OwnClaim[]> {
  const members = await readMembers(db, own.map((row) => row.id));
  const names = await readNames(db, [...new Set([...members.values()].flat())]);
  return own.map((row) => ({
    claim: { id: row.id, ownerId: row.owner_id, ownerName: row.owner_name, x1: row.x1, y1: row.y1, x2: row.x2, y2: row.y2, trusted: false },
    members: (members.get(row.id) ?? []).map((playerId) => ({ playerId, name: names.get(playerId) ?? `${playerId.slice(0, 8)}…` })),
  }));
}

/** The requests of player `options.playerId`. */
export function createClaimRequests(db: SupabaseClient, options: ClaimRequestOptions): ClaimRequests {
  const { playerId: me, known, ownChanged } = options;
  return {
    async create(rect) {
      const problem = claimShapeProblem(rect);
      if (problem) return problem;
      const { data, error } = await db.from('game_claims')
        .insert({ owner_id: me, owner_name: options.playerName(), ...rect })
        .select(CLAIM_COLUMNS).single();
      if (error) return refusal(error);
      known.set(data as ClaimRow);
      known.publish();
      ownChanged();
      return null;
    },
    async abandon(id) {
      const { error } = await db.from('game_claims').delete().eq('id', id).eq('owner_id', me);
      if (error) return refusal(error);
      known.delete(id);
      known.publish();
      ownChanged();
      return null;
    },
    async trust(claimId, name) {
      const wanted = name.trim();
      if (!wanted) return 'Type the name of the player to trust.';
      const held = await db.from('game_held_names').select('player_id').eq('name_key', nameKey(wanted)).limit(1);
      if (held.error) return refusal(held.error);
      const playerId = (held.data as { player_id: string }[])[0]?.player_id;
      if (!playerId) return `No player is called ${wanted}.`;
      const { error } = await db.from('game_claim_members').insert({ claim_id: claimId, player_id: playerId });
      if (error?.code === '23505') return `${wanted} is already trusted here.`;
      if (error) return refusal(error);
      ownChanged();
      return null;
    },
    async untrust(claimId, playerId) {
      const { error } = await db.from('game_claim_members').delete().eq('claim_id', claimId).eq('player_id', playerId);
      if (error) return refusal(error);
      ownChanged();
      return null;
    },
    async budget() {
      const { data, error } = await db.rpc('claim_budget');
      if (error) throw error;
      return data as ClaimBudget;
    },
    mine: () => readOwnWithMembers(db, known.own()),
  };
}
