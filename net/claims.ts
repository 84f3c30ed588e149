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
 *     block sync (net/blocks.ts) holds those channels as the player walks and hands their `claims`
 *     messages to {@link ClaimsFollower.hear}, so claims cost no channel of their own; a claim
 *     outside the regions held is not heard. Each time a region's channel joins (first or again),
 *     {@link ClaimsFollower.regionJoined} reads that region's claims again, so what changed while
 *     it was not held is current on return. Changes heard while a read runs are applied again
 *     after it (each change sets a claim or a trust whole, so the latest wins).
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { claimShapeProblem, type Claim, type TileRect } from '../components/claims.js';
import type { NetEvent } from '../components/network.js';
import { nameKey } from '../components/text.js';
import { regionTiles } from './chunks.js';
import { VIEW_HALF_HEIGHT_TILES, VIEW_HALF_WIDTH_TILES } from './constants.js';
import type { Region } from './regions.js';

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
/** Regions joined within this many ms are read again together, in one request. */
export const REGION_READ_GATHER_MS = 50;
/** Live messages held while a read runs; past it the reads are made again. */
export const MAX_HELD_CLAIM_MESSAGES = 256;
/** Widest claim: a claim overlapping a rectangle starts at most this many tiles left of it. */
const CLAIM_MAX_SPAN = 99;
const CLAIM_COLUMNS = 'id,owner_id,owner_name,x1,y1,x2,y2';
/** Most values in one `in.(...)` filter the embedded server serves (docs/rest-bounds.md, TS102). */
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

/** The claims overlapping `area`, at most `limit` (the index on x1 bounds the scan: no claim is wider than 100 tiles). */
export async function readClaimsIn(db: SupabaseClient, area: TileRect, limit = CLAIMS_PER_READ): Promise<ClaimRow[]> {
  const { data, error } = await db.from('game_claims').select(CLAIM_COLUMNS)
    .gte('x1', area.x1 - CLAIM_MAX_SPAN).lte('x1', area.x2).gte('x2', area.x1)
    .lte('y1', area.y2).gte('y2', area.y1)
    .order('x1').limit(limit);
  if (error) throw error;
  return data as ClaimRow[];
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

/** The tiles of `regions` and everything between them, as one inclusive rectangle. */
export function regionsRect(regions: readonly Region[]): TileRect {
  const tiles = regions.map(regionTiles);
  return {
    x1: Math.min(...tiles.map((t) => t.x0)),
    y1: Math.min(...tiles.map((t) => t.y0)),
    x2: Math.max(...tiles.map((t) => t.x1)) - 1,
    y2: Math.max(...tiles.map((t) => t.y1)) - 1,
  };
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
  const known = new Map<string, ClaimRow>();
  const trusted = new Set<string>();
  const listeners = new Set<() => void>();
  let area: TileRect | null = null;
  let loading = false;
  let closed = false;
  /** Reads under way; while any runs, live messages are also held, to be applied again after each read. */
  let reads = 0;
  let held: ClaimChanges[] = [];
  let heldOverflowed = false;
  const joinedRegions: Region[] = [];
  let gatherTimer: ReturnType<typeof setTimeout> | null = null;
  let ownTimer: ReturnType<typeof setTimeout> | null = null;

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
  /** Own changes heard live: the same change arrives once per region its claim overlaps, so they are told once. */
  const ownChangedSoon = () => {
    ownTimer ??= setTimeout(() => {
      ownTimer = null;
      if (!closed) ownChanged();
    }, REGION_READ_GATHER_MS);
  };

  /** Applies a live message; returns whether the list shown and whether the player's own claims changed. */
  function apply(changes: ClaimChanges): { shown: boolean; own: boolean } {
    let shown = false;
    let own = false;
    for (const row of changes.made) {
      const before = known.get(row.id);
      if (!before && known.size >= CLAIMS_KEPT && row.owner_id !== me) continue;
      known.set(row.id, row);
      shown = true;
      own ||= !before && row.owner_id === me;
    }
    for (const row of changes.gone) {
      const wasKnown = known.delete(row.id);
      const wasTrusted = trusted.delete(row.id);
      shown ||= wasKnown || wasTrusted;
      own ||= (wasKnown && row.owner_id === me) || wasTrusted;
    }
    for (const [list, add] of [[changes.trusted, true], [changes.untrusted, false]] as const) {
      for (const { claim_id, player_id } of list) {
        if (player_id === me) {
          const before = trusted.has(claim_id);
          if (add) trusted.add(claim_id);
          else trusted.delete(claim_id);
          shown ||= before !== add;
        }
        own ||= known.get(claim_id)?.owner_id === me;
      }
    }
    return { shown, own };
  }

  /** Applies again the messages heard while reads ran: each sets a claim or a trust whole, so the latest wins. */
  function replayHeld() {
    for (const changes of held) apply(changes);
  }

  /** Runs `read` as one of the reads under way; the last to end forgets the held messages (and reads all again if some were lost). */
  async function reading(read: () => Promise<void>): Promise<void> {
    reads++;
    try {
      await read();
    } finally {
      reads--;
      if (reads === 0) {
        const lost = heldOverflowed;
        held = [];
        heldOverflowed = false;
        if (lost && !closed) void load();
      }
    }
  }

  function hear(payload: unknown) {
    if (closed) return;
    const changes = parseClaimChanges(payload);
    if (reads > 0) {
      if (held.length < MAX_HELD_CLAIM_MESSAGES) held.push(changes);
      else heldOverflowed = true;
    }
    const { shown, own } = apply(changes);
    if (shown) publish();
    if (own) ownChangedSoon();
  }

  /** The player's trusts, wherever their claims are. */
  async function readTrusts(): Promise<string[]> {
    const { data, error } = await db.from('game_claim_members').select('claim_id').eq('player_id', me).limit(CLAIMS_KEPT);
    if (error) throw error;
    return (data as { claim_id: string }[]).map((row) => row.claim_id);
  }

  async function load(): Promise<void> {
    if (loading) return;
    loading = true;
    try {
      await reading(async () => {
        const next = claimsArea(options.tile());
        const [near, own, trusts] = await Promise.all([
          readClaimsIn(db, next),
          db.from('game_claims').select(CLAIM_COLUMNS).eq('owner_id', me).limit(OWN_CLAIMS_READ),
          readTrusts(),
        ]);
        if (own.error) throw own.error;
        if (closed) return;
        area = next;
        known.clear();
        for (const row of [...near, ...(own.data as ClaimRow[])]) known.set(row.id, row);
        trusted.clear();
        for (const id of trusts) trusted.add(id);
        replayHeld();
        publish();
      });
    } catch (error) {
      console.error('reading claims failed:', error);
    } finally {
      loading = false;
    }
  }

  /**
   * Reads again the claims of regions whose channels joined: those overlapping them replace what
   * was known there (unless the read was cut at its limit), and the player's trusts are read again.
   */
  async function readRegions(regions: Region[]): Promise<void> {
    const rect = regionsRect(regions);
    try {
      await reading(async () => {
        const [rows, trusts] = await Promise.all([readClaimsIn(db, rect, CLAIMS_KEPT), readTrusts()]);
        if (closed) return;
        if (rows.length < CLAIMS_KEPT) {
          for (const [id, row] of known) if (overlaps(row, rect)) known.delete(id);
        }
        for (const row of rows) if (known.size < CLAIMS_KEPT || known.has(row.id) || row.owner_id === me) known.set(row.id, row);
        trusted.clear();
        for (const id of trusts) trusted.add(id);
        replayHeld();
        publish();
      });
    } catch (error) {
      console.error('reading the claims of joined regions failed:', error);
    }
  }

  function regionJoined(region: Region) {
    if (closed) return;
    joinedRegions.push(region);
    gatherTimer ??= setTimeout(() => {
      gatherTimer = null;
      if (!closed) void readRegions(joinedRegions.splice(0));
    }, REGION_READ_GATHER_MS);
  }

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
    hear,
    regionJoined,
    reload: load,
    async close() {
      closed = true;
      clearInterval(timer);
      if (gatherTimer) clearTimeout(gatherTimer);
      if (ownTimer) clearTimeout(ownTimer);
      listeners.clear();
    },
  };
}
