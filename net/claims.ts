/**
 * Land claims: the claims near the player (read by rectangle, then followed live), which of
 * them the player is trusted on, and the LAND panel's requests (claim, abandon, trust, untrust,
 * budget). The database decides every rule; the client only checks a claim's shape first, so
 * the player reads the reason at once.
 *
 * What is scoped to where the player is, and what is not:
 *   * reading: the claims overlapping the view plus CLAIM_MARGIN_TILES on every side, at most
 *     CLAIMS_PER_READ of them, read again when the player comes within half the margin of the
 *     edge of what was read; and the player's own claims, wherever they are;
 *   * live changes: one subscription to every change of game_claims and game_claim_members in
 *     the world (claims are few and rarely change, and a deleted row is not filterable), of which
 *     those outside the area read are dropped here. Everything else of this module is kept in
 *     tile rectangles, so moving the live changes to chunk keys changes only the channel below.
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { claimShapeProblem, type Claim, type TileRect } from '../components/claims.js';
import type { NetEvent } from '../components/network.js';
import { nameKey } from '../components/text.js';
import { VIEW_HALF_HEIGHT_TILES, VIEW_HALF_WIDTH_TILES } from './constants.js';

/** Tiles read beyond the view on every side. */
export const CLAIM_MARGIN_TILES = 64;
/** Most claims read around the player at once. */
export const CLAIMS_PER_READ = 300;
/** Most of the player's own claims read (the largest budget holds 400 of the smallest). */
export const OWN_CLAIMS_READ = 400;
/** Most claims the client keeps; live claims beyond it wait for the next read. */
export const CLAIMS_KEPT = 1000;
/** How often the player's position is compared with the area read. */
export const CLAIMS_CHECK_MS = 1000;
/** Widest claim: a claim overlapping a rectangle starts at most this many tiles left of it. */
const CLAIM_MAX_SPAN = 99;
const CLAIM_COLUMNS = 'id,owner_id,owner_name,x1,y1,x2,y2';
/** Most values in one `in.(...)` filter the embedded server serves (README, TS102). */
const IN_LIST_MAX = 100;

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

/** The area read around tile `tile`: the view plus the margin on every side. */
export function claimsArea(tile: { x: number; y: number }): TileRect {
  return {
    x1: tile.x - VIEW_HALF_WIDTH_TILES - CLAIM_MARGIN_TILES,
    y1: tile.y - VIEW_HALF_HEIGHT_TILES - CLAIM_MARGIN_TILES,
    x2: tile.x + VIEW_HALF_WIDTH_TILES + CLAIM_MARGIN_TILES,
    y2: tile.y + VIEW_HALF_HEIGHT_TILES + CLAIM_MARGIN_TILES,
  };
}

/** Whether rectangles `a` and `b` share a tile. */
export function overlaps(a: TileRect, b: TileRect): boolean {
  return a.x1 <= b.x2 && a.x2 >= b.x1 && a.y1 <= b.y2 && a.y2 >= b.y1;
}

/** Whether the view around `tile` has come within half the margin of the edge of `area`. */
export function nearEdge(area: TileRect, tile: { x: number; y: number }): boolean {
  const inner = CLAIM_MARGIN_TILES / 2;
  return tile.x - VIEW_HALF_WIDTH_TILES - inner < area.x1 || tile.x + VIEW_HALF_WIDTH_TILES + inner > area.x2
    || tile.y - VIEW_HALF_HEIGHT_TILES - inner < area.y1 || tile.y + VIEW_HALF_HEIGHT_TILES + inner > area.y2;
}

/** The claims overlapping `area`, at most CLAIMS_PER_READ (the index on x1 bounds the scan: no claim is wider than 100 tiles). */
export async function readClaimsIn(db: SupabaseClient, area: TileRect): Promise<ClaimRow[]> {
  const { data, error } = await db.from('game_claims').select(CLAIM_COLUMNS)
    .gte('x1', area.x1 - CLAIM_MAX_SPAN).lte('x1', area.x2).gte('x2', area.x1)
    .lte('y1', area.y2).gte('y2', area.y1)
    .order('x1').limit(CLAIMS_PER_READ);
  if (error) throw error;
  return data as ClaimRow[];
}

/** What the claims module needs. */
export interface ClaimsOptions {
  playerId: string;
  playerName(): string;
  /** The local player's tile. */
  tile(): { x: number; y: number };
  emit(event: NetEvent): void;
}

/** The claims side of the session. */
export interface ClaimsFollower {
  /** Claims `rect`; resolves to null, or to the sentence saying why not. */
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
  /** Calls `listener` whenever a claim or a trust of the player's changes; returns the unsubscribe. */
  onOwnChange(listener: () => void): () => void;
  /** Reads everything again (after a reconnect). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/** Reads the claims around the player and follows them live; see the module comment. */
export function followClaims(db: SupabaseClient, options: ClaimsOptions): ClaimsFollower {
  const me = options.playerId;
  const known = new Map<string, ClaimRow>();
  const trusted = new Set<string>();
  const listeners = new Set<() => void>();
  let area: TileRect | null = null;
  let loading = false;

  const publish = () => {
    const claims: Claim[] = [];
    for (const row of known.values()) {
      claims.push({ id: row.id, ownerId: row.owner_id, ownerName: row.owner_name, x1: row.x1, y1: row.y1, x2: row.x2, y2: row.y2, trusted: trusted.has(row.id) });
    }
    options.emit({ kind: 'claims', claims });
  };
  const ownChanged = () => {
    for (const listener of listeners) listener();
  };

  async function load(): Promise<void> {
    if (loading) return;
    loading = true;
    try {
      const next = claimsArea(options.tile());
      const [near, own, memberships] = await Promise.all([
        readClaimsIn(db, next),
        db.from('game_claims').select(CLAIM_COLUMNS).eq('owner_id', me).limit(OWN_CLAIMS_READ),
        db.from('game_claim_members').select('claim_id').eq('player_id', me).limit(CLAIMS_KEPT),
      ]);
      if (own.error) throw own.error;
      if (memberships.error) throw memberships.error;
      area = next;
      known.clear();
      for (const row of [...near, ...(own.data as ClaimRow[])]) known.set(row.id, row);
      trusted.clear();
      for (const row of memberships.data as { claim_id: string }[]) trusted.add(row.claim_id);
      publish();
    } catch (error) {
      console.error('reading claims failed:', error);
    } finally {
      loading = false;
    }
  }

  const onClaim = (payload: { eventType: string; new: Partial<ClaimRow>; old: Partial<ClaimRow> }) => {
    if (payload.eventType === 'DELETE') {
      const id = payload.old.id;
      if (!id) return;
      const gone = known.get(id);
      known.delete(id);
      publish();
      if (gone?.owner_id === me || trusted.has(id)) ownChanged();
      trusted.delete(id);
      return;
    }
    const row = payload.new as ClaimRow;
    const mine = row.owner_id === me;
    if (!mine && (!area || !overlaps(row, area) || known.size >= CLAIMS_KEPT)) return;
    known.set(row.id, row);
    publish();
    if (mine) ownChanged();
  };

  const onMember = (payload: { eventType: string; new: { claim_id?: string; player_id?: string }; old: { claim_id?: string; player_id?: string } }) => {
    const row = payload.eventType === 'DELETE' ? payload.old : payload.new;
    if (!row.claim_id) return;
    if (row.player_id === me) {
      if (payload.eventType === 'DELETE') trusted.delete(row.claim_id);
      else trusted.add(row.claim_id);
      publish();
    }
    if (known.get(row.claim_id)?.owner_id === me) ownChanged();
  };

  const channel: RealtimeChannel = db.channel('claims')
    .on('postgres_changes', { event: '*', schema: 'public', table: 'game_claims' }, onClaim as never)
    .on('postgres_changes', { event: '*', schema: 'public', table: 'game_claim_members' }, onMember as never)
    .subscribe();

  void load();
  const timer = setInterval(() => {
    if (area && nearEdge(area, options.tile())) void load();
  }, CLAIMS_CHECK_MS);

  const refusal = (error: { message?: string } | null) => (error ? error.message || 'The server refused the change.' : null);

  return {
    async create(rect) {
      const problem = claimShapeProblem(rect);
      if (problem) return problem;
      const { data, error } = await db.from('game_claims')
        .insert({ owner_id: me, owner_name: options.playerName(), ...rect })
        .select(CLAIM_COLUMNS).single();
      if (error) return refusal(error);
      known.set((data as ClaimRow).id, data as ClaimRow);
      publish();
      ownChanged();
      return null;
    },
    async abandon(id) {
      const { error } = await db.from('game_claims').delete().eq('id', id).eq('owner_id', me);
      if (error) return refusal(error);
      known.delete(id);
      publish();
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
    async mine() {
      const own = [...known.values()].filter((row) => row.owner_id === me);
      const ids = own.map((row) => row.id);
      const members = new Map<string, string[]>();
      for (const some of slices(ids, IN_LIST_MAX)) {
        const { data, error } = await db.from('game_claim_members').select('claim_id,player_id').in('claim_id', some).limit(50 * some.length);
        if (error) throw error;
        for (const row of data as { claim_id: string; player_id: string }[]) members.set(row.claim_id, [...(members.get(row.claim_id) ?? []), row.player_id]);
      }
      const names = new Map<string, string>();
      for (const some of slices([...new Set([...members.values()].flat())], IN_LIST_MAX)) {
        const { data, error } = await db.from('game_held_names').select('player_id,player_name').in('player_id', some).limit(some.length);
        if (error) throw error;
        for (const row of data as { player_id: string; player_name: string }[]) names.set(row.player_id, row.player_name);
      }
      return own.map((row) => ({
        claim: { id: row.id, ownerId: row.owner_id, ownerName: row.owner_name, x1: row.x1, y1: row.y1, x2: row.x2, y2: row.y2, trusted: false },
        members: (members.get(row.id) ?? []).map((playerId) => ({ playerId, name: names.get(playerId) ?? `${playerId.slice(0, 8)}…` })),
      }));
    },
    onOwnChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reload: load,
    async close() {
      clearInterval(timer);
      listeners.clear();
      await db.removeChannel(channel);
    },
  };
}
