/**
 * The chunks of blocks held around the player: read by primary-key range once their region's
 * channel is joined, nearest first and at most MAX_CHUNK_READS at once, with the live changes
 * heard while a read runs held and applied after its rows, and the player's edits not yet answered
 * shown over them (unsent.ts). A failed read is tried again after RETRY_MS.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../../components/network.js';
import { decodeBlockChanges, type BlockChange } from '../../protocol/block-changes.js';
import { CHUNK_TILES, chunkOfTile, type Region } from '../../protocol/geometry.js';
import { chunkName, chunksAround, chunkTiles, regionOfChunk } from '../chunks.js';
import type { OwnBlocks } from './own-blocks.js';
import type { UnsentEdits } from './unsent.js';
import { BLOCK_COLUMNS, blockRowToEvent, type BlockRow } from '../rows.js';

/**
 * Pixels beyond the view's edges whose chunks are read (and whose regions are heard): about a
 * second of walking (187.5 px/s), so a chunk is read before the view reaches it.
 */
export const CHUNK_MARGIN_PX = 192;
/** Chunk reads under way at once. */
export const MAX_CHUNK_READS = 4;
/** Changes held for one chunk while it is read; past it the read is made again (a flood meanwhile). */
export const MAX_HELD_CHANGES = 1024;
/** Wait before a failed chunk read is tried again. */
const RETRY_MS = 1000;

/** One chunk known: shown (read at least once), and a read under way (its held changes) or not. */
interface ChunkState {
  cx: number;
  cy: number;
  shown: boolean;
  /** Whether the rows shown are followed live since their read (false: a read is due). */
  fresh: boolean;
  /** Changes heard while a read runs; null when none runs. */
  held: BlockChange[] | null;
  /** Held changes overflowed: the read under way is made again. */
  overflowed: boolean;
  /** No read before this time (after a failure), in ms. */
  retryAt: number;
}

/** What the chunks need. */
export interface BlockChunksOptions {
  emit(event: NetEvent): void;
  now(): number;
  own: OwnBlocks;
  /** The view's size in pixels. */
  view(): { width: number; height: number };
  /** Whether the channel of `region` is joined: a chunk is read only once its changes are heard. */
  regionJoined(region: Region): boolean;
  /** The last position followed (pixels), or null before the first; reads go on from there as they end. */
  last(): { x: number; y: number } | null;
  closed(): boolean;
  /** Called when a player is seen building live (for the online count). */
  onActivity?(playerId: string, at: number): void;
  /** The player's edits on their way: a read shows them over its rows. */
  unsent: Pick<UnsentEdits, 'over'>;
}

/** The chunks held and read. */
export interface BlockChunks {
  /** A `blocks` payload heard on a region's channel. */
  hear(payload: unknown): void;
  /** Starts the reads due around (x, y), nearest chunk first, while fewer than MAX_CHUNK_READS run. */
  pump(x: number, y: number): void;
  /** The chunks of `region` are to be read again (its channel joined again after a drop). */
  readAgain(region: Region): void;
  /** The chunk of tile (x, y), if held, is to be read again (an edit there was given up). */
  readTileAgain(x: number, y: number): void;
  /** Drops the chunks of `region` (its channel was left). */
  drop(region: Region): void;
  /** Forgets the chunks never shown, not being read and not in `wanted` (names). */
  forgetUnwanted(wanted: ReadonlySet<string>): void;
  /** Chunks shown, as 'cx:cy'. */
  shown(): string[];
  /** The chunks the view (without its margin) touches around (x, y), and how many of them are shown. */
  viewProgress(x: number, y: number): { loaded: number; total: number };
  /** Whether every chunk the view touches around (x, y) is shown and followed live since its last read. */
  viewCurrent(x: number, y: number): boolean;
}

/** Whether chunk `state` lies in `region`. */
function inRegion(state: ChunkState, region: Region): boolean {
  const r = regionOfChunk(state.cx, state.cy);
  return r.rx === region.rx && r.ry === region.ry;
}

/** Shows a live change: the tile set or cleared, and its owner noted. */
function applyChange({ emit, own }: Pick<BlockChunksOptions, 'emit' | 'own'>, change: BlockChange): void {
  if (change.blockType === null) {
    emit({ kind: 'blockCleared', x: change.x, y: change.y, live: true });
    own.note(change.x, change.y, null);
  } else {
    emit({ kind: 'blockSet', x: change.x, y: change.y, blockType: change.blockType, owner: change.owner, live: true });
    own.note(change.x, change.y, change.owner);
  }
}

/**
 * A live change for chunk `state`: held while its read runs (the read is made again past
 * MAX_HELD_CHANGES), shown when the chunk is, else ignored (its read, later, has it).
 */
function holdOrApply(state: ChunkState, change: BlockChange, options: Pick<BlockChunksOptions, 'emit' | 'own'>): void {
  if (state.held) {
    if (state.held.length < MAX_HELD_CHANGES) state.held.push(change);
    else state.overflowed = true;
  } else if (state.shown) applyChange(options, change);
}

/** The rows of the chunk whose tiles are [x0, x1) x [y0, y1), as the database holds them now, or the error that came instead. */
async function readChunkRows(db: SupabaseClient, { x0, y0, x1, y1 }: { x0: number; y0: number; x1: number; y1: number }): Promise<{ rows: BlockRow[]; error: unknown }> {
  const { data, error } = await db
    .from('game_blocks')
    .select(BLOCK_COLUMNS)
    .gte('x', x0)
    .lt('x', x1)
    .gte('y', y0)
    .lt('y', y1)
    .limit(CHUNK_TILES * CHUNK_TILES);
  return { rows: (data ?? []) as unknown as BlockRow[], error };
}

/** `state` with a new read due at once; a read under way is outdated (its rows are dropped as it ends). */
function readDue(state: ChunkState): ChunkState {
  return { ...state, fresh: false, held: null, overflowed: false, retryAt: 0 };
}

/** Drops the chunks of `region` from `chunks`: those shown are cleared from the engine and their owners forgotten. */
function dropRegion(chunks: Map<string, ChunkState>, region: Region, { emit, own }: Pick<BlockChunksOptions, 'emit' | 'own'>): void {
  for (const [key, state] of chunks) {
    if (!inRegion(state, region)) continue;
    chunks.delete(key);
    if (!state.shown) continue;
    const { x0, y0 } = chunkTiles(state.cx, state.cy);
    emit({ kind: 'areaDropped', x: x0, y: y0, width: CHUNK_TILES, height: CHUNK_TILES });
    own.forgetChunk(state);
  }
}

/** The states of the chunks the view (without its margin) touches around (x, y); undefined for those not known. */
function viewChunks(chunks: Map<string, ChunkState>, { view }: Pick<BlockChunksOptions, 'view'>, x: number, y: number): Array<ChunkState | undefined> {
  const { width, height } = view();
  return chunksAround(x, y, width / 2, height / 2, 0).map(({ cx, cy }) => chunks.get(chunkName(cx, cy)));
}

/** None held yet. */
export function createBlockChunks(db: SupabaseClient, options: BlockChunksOptions): BlockChunks {
  const { emit, now, own } = options;
  const chunks = new Map<string, ChunkState>();
  let reads = 0;

  async function read(key: string, state: ChunkState): Promise<void> {
    const tiles = chunkTiles(state.cx, state.cy);
    state.held = [];
    state.overflowed = false;
    reads++;
    try {
      const { rows, error } = await readChunkRows(db, tiles);
      if (chunks.get(key) !== state || options.closed()) return;
      if (error) throw error;
      const held = state.held;
      state.held = null;
      if (state.overflowed) return;
      own.forgetChunk(state);
      for (const row of rows) own.note(row.x, row.y, row.player_id);
      emit({ kind: 'areaLoaded', x: tiles.x0, y: tiles.y0, width: CHUNK_TILES, height: CHUNK_TILES, blocks: options.unsent.over(rows.map(blockRowToEvent), tiles) });
      for (const change of held) applyChange(options, change);
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
      const last = options.last();
      if (last && !options.closed()) pump(last.x, last.y);
    }
  }

  function pump(x: number, y: number): void {
    if (reads >= MAX_CHUNK_READS) return;
    const { width, height } = options.view();
    for (const { cx, cy } of chunksAround(x, y, width / 2, height / 2, CHUNK_MARGIN_PX)) {
      if (reads >= MAX_CHUNK_READS) return;
      if (!options.regionJoined(regionOfChunk(cx, cy))) continue;
      const key = chunkName(cx, cy);
      let state = chunks.get(key);
      if (!state) chunks.set(key, (state = { cx, cy, shown: false, fresh: false, held: null, overflowed: false, retryAt: 0 }));
      if (state.fresh || state.held || state.retryAt > now()) continue;
      void read(key, state);
    }
  }

  return {
    hear(payload) {
      for (const change of decodeBlockChanges(payload)) {
        if (change.blockType !== null) options.onActivity?.(change.owner, now());
        const { cx, cy } = chunkOfTile(change.x, change.y);
        const state = chunks.get(chunkName(cx, cy));
        if (state) holdOrApply(state, change, options);
      }
    },
    pump,
    readAgain(region) {
      for (const [key, state] of chunks) if (inRegion(state, region)) chunks.set(key, readDue(state));
    },
    readTileAgain(x, y) {
      const { cx, cy } = chunkOfTile(x, y);
      const state = chunks.get(chunkName(cx, cy));
      if (state) chunks.set(chunkName(cx, cy), readDue(state));
    },
    drop: (region) => dropRegion(chunks, region, options),
    forgetUnwanted(wanted) {
      for (const [key, state] of chunks) if (!state.shown && !state.held && !wanted.has(key)) chunks.delete(key);
    },
    shown: () => [...chunks].filter(([, state]) => state.shown).map(([key]) => key),
    viewProgress(x, y) {
      const inView = viewChunks(chunks, options, x, y);
      return { loaded: inView.filter((state) => state?.shown).length, total: inView.length };
    },
    viewCurrent: (x, y) => viewChunks(chunks, options, x, y).every((state) => state !== undefined && state.shown && state.fresh && !state.held),
  };
}
