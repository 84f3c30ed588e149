/**
 * Shared blocks, held by chunk around the player (docs/architecture.md "Chunks"): the chunks the
 * view touches plus a margin are read by primary-key range, nearest first, and each region's
 * changes are heard on its private database-broadcast topic (`blocks:rx:ry`, net/chunks.ts), so a
 * player holds and hears a bounded part of the world whatever its size. Optimistic placement and
 * removal with rollback. Tiles are in tile units, positions in pixels.
 *
 * Nothing is lost between a chunk's read and its live changes: a chunk is read only once its
 * region's channel is joined, and the changes heard while the read runs are held and applied,
 * in order, after its rows (a change already in the rows sets a tile to what it already shows).
 * Changes heard for a chunk that is neither held nor being read are ignored: its read, later,
 * has them. When a region's channel joins again (after a drop), its chunks are read again.
 *
 * The database also sends land-claim changes on the same region topics (event `claims`); they are
 * handed, with each (re)join of a region's channel, to whoever follows claims (net/claims.ts).
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { TILE_SIZE } from '../components/constants.js';
import type { NetEvent } from '../components/network.js';
import { blocksTopic, CHUNK_TILES, chunkName, chunkOfTile, chunksAround, chunkTiles, regionName, regionOfChunk, regionTiles, type ChunkCoords } from './chunks.js';
import { describeRefusal } from './refusals.js';
import type { Region } from './regions.js';
import { blockRowToEvent, type BlockRow } from './rows.js';

/** The columns a chunk read asks for: the engine needs the type and owner of each tile, nothing else. */
const CHUNK_COLUMNS = 'x,y,block_type,player_id';
/**
 * Pixels beyond the view's edges whose chunks are read (and whose regions are heard): about a
 * second of walking (187.5 px/s), so a chunk is read before the view reaches it.
 */
export const CHUNK_MARGIN_PX = 192;
/**
 * Pixels further out before a region is left and its chunks dropped: walking to and fro over a
 * chunk's edge neither drops nor reads it again.
 */
export const REGION_KEEP_PX = 512;
/** Chunk reads under way at once. */
export const MAX_CHUNK_READS = 4;
/** Changes held for one chunk while it is read; past it the read is made again (a flood meanwhile). */
export const MAX_HELD_CHANGES = 1024;
/** Wait before a failed chunk read is tried again. */
const RETRY_MS = 1000;
/** The view assumed when the page does not tell: the game's 800x600 canvas. */
export const DEFAULT_VIEW = Object.freeze({ width: 800, height: 600 });

/** A tile change heard live: a block set, or (blockType null) a tile cleared. */
interface Change {
  x: number;
  y: number;
  blockType: string | null;
  owner: string;
}

/** What the block sync needs from its surroundings. */
export interface BlockSyncOptions {
  playerId: string;
  playerName(): string;
  /** Where engine events go. */
  emit(event: NetEvent): void;
  /** Tells the player why a change was refused. */
  notice(title: string, description: string): void;
  /** The view's size in pixels (DEFAULT_VIEW unless given). */
  view?(): { width: number; height: number };
  /** Called when the live block channels come up (true) or all drop (false). */
  onConnected?(connected: boolean): void;
  /** Called when a player is seen building live (for the online count). */
  onActivity?(playerId: string, at: number): void;
  /** A block of the local player's was removed, heard live (by anyone). */
  onOwnRemoved?(): void;
  /** A `claims` message heard on a region's topic (its payload as sent). */
  onClaims?(payload: unknown): void;
  /** A region's channel joined (first time or again): what it carries may have changed meanwhile. */
  onRegionJoined?(region: Region): void;
  now?(): number;
}

/** The block side of the network session. */
export interface BlockSync {
  /** Called every step with the local position (pixels): follows its regions and reads the chunks it needs. */
  follow(x: number, y: number): void;
  /** `inventory`: the block came out of the inventory, so a refusal gives it back. */
  place(x: number, y: number, blockType: string, inventory: boolean): Promise<boolean>;
  remove(x: number, y: number, blockType: string | null): Promise<boolean>;
  /** Chunks held (read and shown), as 'cx:cy'. */
  heldChunks(): string[];
  /** The chunks the view (without its margin) touches around the last followed position, and how many of them are shown. */
  viewProgress(): { loaded: number; total: number };
  /** Block topics listened to. */
  topics(): string[];
  close(): Promise<void>;
}

/** One chunk the sync knows: shown (read at least once), and a read under way (its held changes) or not. */
interface ChunkState {
  cx: number;
  cy: number;
  shown: boolean;
  /** Whether the rows shown are followed live since their read (false: a read is due). */
  fresh: boolean;
  /** Changes heard while a read runs; null when none runs. */
  held: Change[] | null;
  /** Held changes overflowed: the read under way is made again. */
  overflowed: boolean;
  /** No read before this time (after a failure), in ms. */
  retryAt: number;
}

/** One region's live channel. */
interface RegionChannel {
  region: Region;
  /** Null until a removal of the same topic has finished. */
  channel: RealtimeChannel | null;
  joined: boolean;
  /** Joined once already: a later join is a rejoin after a drop, and the region's chunks are read again. */
  everJoined: boolean;
}

/** Reads a `blocks` broadcast payload ({c: [[x, y]], s: [[x, y, type, owner]]}); malformed entries are skipped. */
export function parseBlockChanges(payload: unknown): Change[] {
  const changes: Change[] = [];
  if (typeof payload !== 'object' || payload === null) return changes;
  const { c, s } = payload as { c?: unknown; s?: unknown };
  const whole = (v: unknown): v is number => Number.isInteger(v);
  if (Array.isArray(c)) {
    for (const entry of c) {
      if (Array.isArray(entry) && whole(entry[0]) && whole(entry[1])) changes.push({ x: entry[0], y: entry[1], blockType: null, owner: '' });
    }
  }
  if (Array.isArray(s)) {
    for (const entry of s) {
      if (Array.isArray(entry) && whole(entry[0]) && whole(entry[1]) && typeof entry[2] === 'string' && typeof entry[3] === 'string') {
        changes.push({ x: entry[0], y: entry[1], blockType: entry[2], owner: entry[3] });
      }
    }
  }
  return changes;
}

/** Whether region `region` meets the rectangle of pixels [x0, x1) x [y0, y1). */
function regionMeets(region: Region, x0: number, y0: number, x1: number, y1: number): boolean {
  const tiles = regionTiles(region);
  return tiles.x0 * TILE_SIZE < x1 && tiles.x1 * TILE_SIZE > x0 && tiles.y0 * TILE_SIZE < y1 && tiles.y1 * TILE_SIZE > y0;
}

/** Creates the block sync; nothing is read or joined until the first `follow`. */
export function createBlockSync(db: SupabaseClient, options: BlockSyncOptions): BlockSync {
  const { emit } = options;
  const now = options.now ?? Date.now;
  const chunks = new Map<string, ChunkState>();
  const regions = new Map<string, RegionChannel>();
  /** Removals of left channels under way, by region name. */
  const leaving = new Map<string, Promise<void>>();
  let reads = 0;
  let connected = false;
  let closed = false;
  let last: { x: number; y: number } | null = null;
  /**
   * Tiles ('x,y') whose block is the local player's, as last heard. A live removal carries only
   * the tile, so this is how a removal of the player's block is recognised.
   */
  const own = new Set<string>();
  const noteOwner = (x: number, y: number, owner: string | null) => {
    if (owner === options.playerId) own.add(`${x},${y}`);
    else if (own.delete(`${x},${y}`) && owner === null) options.onOwnRemoved?.();
  };

  /** Forgets which tiles of a chunk are the player's (the chunk is dropped, or read again). */
  function forgetOwn({ cx, cy }: ChunkCoords) {
    for (const tile of own) {
      const [tx, ty] = tile.split(',').map(Number) as [number, number];
      if (Math.floor(tx / CHUNK_TILES) === cx && Math.floor(ty / CHUNK_TILES) === cy) own.delete(tile);
    }
  }

  function reportConnection() {
    const up = [...regions.values()].some((r) => r.joined);
    if (up !== connected) options.onConnected?.((connected = up));
  }

  function apply(change: Change) {
    if (change.blockType === null) {
      emit({ kind: 'blockCleared', x: change.x, y: change.y, live: true });
      noteOwner(change.x, change.y, null);
    } else {
      emit({ kind: 'blockSet', x: change.x, y: change.y, blockType: change.blockType, owner: change.owner, live: true });
      noteOwner(change.x, change.y, change.owner);
    }
  }

  function hear(payload: unknown) {
    for (const change of parseBlockChanges(payload)) {
      if (change.blockType !== null) options.onActivity?.(change.owner, now());
      const { cx, cy } = chunkOfTile(change.x, change.y);
      const state = chunks.get(chunkName(cx, cy));
      if (!state) continue;
      if (state.held) {
        if (state.held.length < MAX_HELD_CHANGES) state.held.push(change);
        else state.overflowed = true;
      } else if (state.shown) apply(change);
    }
  }

  /**
   * Joins a region's channel. A channel of the same topic still being removed is waited for:
   * the client would hand back that channel instead of a new one.
   */
  function join(region: Region): void {
    const name = regionName(region);
    const entry: RegionChannel = { region, channel: null, joined: false, everJoined: false };
    regions.set(name, entry);
    const open = () => {
      if (regions.get(name) !== entry || closed) return;
      const channel = db.channel(blocksTopic(region), { config: { private: true } })
        .on('broadcast', { event: 'blocks' }, ({ payload }) => hear(payload))
        .on('broadcast', { event: 'claims' }, ({ payload }) => options.onClaims?.(payload));
      entry.channel = channel;
      channel.subscribe((status) => {
        if (regions.get(name) !== entry) return;
        const joined = status === 'SUBSCRIBED';
        if (joined && entry.everJoined) {
          // Changes may have been missed while the channel was down: its chunks are read again.
          for (const [key, state] of chunks) {
            const r = regionOfChunk(state.cx, state.cy);
            if (r.rx === region.rx && r.ry === region.ry) chunks.set(key, { ...state, fresh: false, held: null, overflowed: false, retryAt: 0 });
          }
        }
        entry.joined = joined;
        entry.everJoined ||= joined;
        reportConnection();
        if (joined) options.onRegionJoined?.(region);
        if (joined && last) pump(last.x, last.y);
      });
    };
    const pending = leaving.get(name);
    if (pending) void pending.then(open);
    else open();
  }

  function leave(name: string, entry: RegionChannel): void {
    regions.delete(name);
    if (entry.channel) {
      const removal = db.removeChannel(entry.channel).then(
        () => undefined,
        () => undefined,
      );
      leaving.set(name, removal);
      void removal.then(() => leaving.get(name) === removal && leaving.delete(name));
    }
    for (const [key, state] of chunks) {
      const r = regionOfChunk(state.cx, state.cy);
      if (r.rx !== entry.region.rx || r.ry !== entry.region.ry) continue;
      chunks.delete(key);
      if (!state.shown) continue;
      const { x0, y0 } = chunkTiles(state.cx, state.cy);
      emit({ kind: 'areaDropped', x: x0, y: y0, width: CHUNK_TILES, height: CHUNK_TILES });
      forgetOwn(state);
    }
    reportConnection();
  }

  async function read(key: string, state: ChunkState): Promise<void> {
    const { x0, y0, x1, y1 } = chunkTiles(state.cx, state.cy);
    state.held = [];
    state.overflowed = false;
    reads++;
    try {
      const { data, error } = await db
        .from('game_blocks')
        .select(CHUNK_COLUMNS)
        .gte('x', x0)
        .lt('x', x1)
        .gte('y', y0)
        .lt('y', y1)
        .limit(CHUNK_TILES * CHUNK_TILES);
      if (chunks.get(key) !== state || closed) return;
      if (error) throw error;
      const held = state.held;
      state.held = null;
      if (state.overflowed) return;
      const rows = data as unknown as BlockRow[];
      forgetOwn(state);
      for (const row of rows) noteOwner(row.x, row.y, row.player_id);
      emit({ kind: 'areaLoaded', x: x0, y: y0, width: CHUNK_TILES, height: CHUNK_TILES, blocks: rows.map(blockRowToEvent) });
      for (const change of held) apply(change);
      state.shown = true;
      state.fresh = true;
    } catch (error) {
      console.error(`reading chunk ${key} failed:`, error);
      if (chunks.get(key) === state) {
        state.held = null;
        state.retryAt = now() + RETRY_MS;
      }
    } finally {
      reads--;
      if (last && !closed) pump(last.x, last.y);
    }
  }

  /** Starts the reads due, nearest chunk first, while fewer than MAX_CHUNK_READS run. */
  function pump(x: number, y: number): void {
    if (reads >= MAX_CHUNK_READS) return;
    const { width, height } = options.view?.() ?? DEFAULT_VIEW;
    for (const { cx, cy } of chunksAround(x, y, width / 2, height / 2, CHUNK_MARGIN_PX)) {
      if (reads >= MAX_CHUNK_READS) return;
      const region = regions.get(regionName(regionOfChunk(cx, cy)));
      if (!region?.joined) continue;
      const key = chunkName(cx, cy);
      let state = chunks.get(key);
      if (!state) chunks.set(key, (state = { cx, cy, shown: false, fresh: false, held: null, overflowed: false, retryAt: 0 }));
      if (state.fresh || state.held || state.retryAt > now()) continue;
      void read(key, state);
    }
  }

  function follow(x: number, y: number): void {
    if (closed) return;
    const moved = !last || Math.floor(x / TILE_SIZE) !== Math.floor(last.x / TILE_SIZE) || Math.floor(y / TILE_SIZE) !== Math.floor(last.y / TILE_SIZE);
    last = { x, y };
    if (moved) {
      const { width, height } = options.view?.() ?? DEFAULT_VIEW;
      const near = { x0: x - width / 2 - CHUNK_MARGIN_PX, y0: y - height / 2 - CHUNK_MARGIN_PX, x1: x + width / 2 + CHUNK_MARGIN_PX, y1: y + height / 2 + CHUNK_MARGIN_PX };
      const keep = REGION_KEEP_PX;
      for (const [name, entry] of regions) {
        if (!regionMeets(entry.region, near.x0 - keep, near.y0 - keep, near.x1 + keep, near.y1 + keep)) leave(name, entry);
      }
      const around = chunksAround(x, y, width / 2, height / 2, CHUNK_MARGIN_PX);
      for (const { cx, cy } of around) {
        const region = regionOfChunk(cx, cy);
        if (!regions.has(regionName(region))) join(region);
      }
      // Chunks never shown and no longer wanted are forgotten (shown ones stay while their region is heard).
      const wanted = new Set(around.map(({ cx, cy }) => chunkName(cx, cy)));
      for (const [key, state] of chunks) if (!state.shown && !state.held && !wanted.has(key)) chunks.delete(key);
    }
    pump(x, y);
  }

  /** After a refusal, shows the tile as the server has it and tells the player why. */
  async function refuse(action: 'place' | 'remove', x: number, y: number, blockType: string, inventory: boolean, error: { code?: string; message?: string }) {
    const reason = describeRefusal(error, 'block');
    console.error(`block ${action} refused at ${x},${y}:`, error.code, error.message);
    emit({ kind: 'blockRefused', action, x, y, blockType, reason, inventory });
    const current = await db.from('game_blocks').select(CHUNK_COLUMNS).eq('x', x).eq('y', y).maybeSingle();
    if (current.data) {
      const row = current.data as unknown as BlockRow;
      noteOwner(x, y, row.player_id);
      emit(blockRowToEvent(row));
    } else if (!current.error) {
      own.delete(`${x},${y}`);
      emit({ kind: 'blockCleared', x, y });
    }
    options.notice(action === 'place' ? 'Block Not Placed' : 'Block Not Removed', reason);
  }

  async function place(x: number, y: number, blockType: string, inventory: boolean): Promise<boolean> {
    const { error } = await db
      .from('game_blocks')
      .insert({ x, y, block_type: blockType, player_id: options.playerId, player_name: options.playerName() });
    if (error) {
      await refuse('place', x, y, blockType, inventory, error);
      return false;
    }
    return true;
  }

  async function remove(x: number, y: number, blockType: string | null): Promise<boolean> {
    const { data, error } = await db.from('game_blocks').delete().eq('x', x).eq('y', y).select('x,y');
    if (error) {
      if (blockType) await refuse('remove', x, y, blockType, true, error);
      else options.notice('Block Not Removed', describeRefusal(error, 'block'));
      return false;
    }
    // Blocks the removal left floating are removed by the server in the same transaction
    // (20250201000400_position_bound.sql); their removals arrive on the live channels.
    const removed = data as Array<{ x: number; y: number }>;
    for (const row of removed) emit({ kind: 'blockCleared', x: row.x, y: row.y });
    return removed.length > 0;
  }

  return {
    follow,
    place,
    remove,
    heldChunks: () => [...chunks].filter(([, state]) => state.shown).map(([key]) => key),
    viewProgress() {
      if (!last) return { loaded: 0, total: 0 };
      const { width, height } = options.view?.() ?? DEFAULT_VIEW;
      const inView = chunksAround(last.x, last.y, width / 2, height / 2, 0);
      const loaded = inView.filter(({ cx, cy }) => chunks.get(chunkName(cx, cy))?.shown).length;
      return { loaded, total: inView.length };
    },
    topics: () => [...regions.values()].map((entry) => blocksTopic(entry.region)),
    close: async () => {
      closed = true;
      const all = [...regions.values()];
      regions.clear();
      await Promise.all(all.map((entry) => entry.channel && db.removeChannel(entry.channel)));
    },
  };
}
