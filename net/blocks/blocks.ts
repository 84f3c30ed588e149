/**
 * Shared blocks, held by chunk around the player (docs/architecture.md "Chunks"): the chunks the
 * view touches plus a margin are read by primary-key range, nearest first, and each region's
 * changes are heard on its private database-broadcast topic (`blocks:rx:ry`, protocol/topics.ts), so a
 * player holds and hears a bounded part of the world whatever its size. Optimistic placement and
 * removal with rollback. Tiles are in tile units, positions in pixels.
 *
 * Nothing is lost between a chunk's read and its live changes: a chunk is read only once its
 * region's channel is joined, and the changes heard while the read runs are held and applied,
 * in order, after its rows (a change already in the rows sets a tile to what it already shows).
 * Changes heard for a chunk that is neither held nor being read are ignored: its read, later,
 * has them. When a region's channel joins again (after a drop), its chunks are read again.
 *
 * Where its changes come from: REST reads of `game_blocks` by chunk (chunk-reads.ts), and the
 * private topics `blocks:rx:ry` (event `blocks`), on which only the database speaks: statement
 * triggers on `game_blocks` (supabase/migrations/20250702000000_world_chunks.sql) send every
 * statement's changes, whoever made them (other clients, this one, the operators). The position
 * comes from the session's one interest (net/interest/interest.ts), which calls `follow` every
 * step. The database also sends land-claim changes on the same topics (event `claims`); they are
 * handed, with each (re)join of a region's channel, to whoever follows claims (net/claims/claims.ts).
 *
 * Here the following of the player; beside it: the region channels (channels.ts), the chunks held
 * and read (chunk-reads.ts), the changes as broadcast (protocol/block-changes.ts), the player's
 * own tiles (own-blocks.ts), the player's edits (edits.ts) and those not answered yet (unsent.ts).
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../../components/network.js';
import { TILE_SIZE, type Region } from '../../protocol/geometry.js';
import { createBlockChunks, CHUNK_MARGIN_PX } from './chunk-reads.js';
import { createBlockEdits, type BlockEdits } from './edits.js';
import { createBlockRegions } from './channels.js';
import { chunkName, chunksAround, regionOfChunk, regionTiles } from '../chunks.js';
import { createOwnBlocks } from './own-blocks.js';
import { createUnsentEdits, type UnsentEdits } from './unsent.js';

/**
 * Pixels further out before a region is left and its chunks dropped: walking to and fro over a
 * chunk's edge neither drops nor reads it again.
 */
export const REGION_KEEP_PX = 512;
/** The view assumed when the page does not tell: the game's 800x600 canvas. */
export const DEFAULT_VIEW = Object.freeze({ width: 800, height: 600 });

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
export interface BlockSync extends BlockEdits, Pick<UnsentEdits, 'hold' | 'release'> {
  /** Called every step with the local position (pixels): follows its regions and reads the chunks it needs. */
  follow(x: number, y: number): void;
  /** Chunks held (read and shown), as 'cx:cy'. */
  heldChunks(): string[];
  /** The chunks the view (without its margin) touches around the last followed position, and how many of them are shown. */
  viewProgress(): { loaded: number; total: number };
  /** Whether every chunk the view touches is shown and followed live since its last read (after a drop: read again). */
  viewCurrent(): boolean;
  /** Block topics listened to. */
  topics(): string[];
  close(): Promise<void>;
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
  const view = () => options.view?.() ?? DEFAULT_VIEW;
  let closed = false;
  let last: { x: number; y: number } | null = null;
  const own = createOwnBlocks(options.playerId, options.onOwnRemoved);
  const regions = createBlockRegions(db, {
    onBlocks: (payload) => chunks.hear(payload),
    onClaims: options.onClaims,
    // Changes may have been missed while the channel was down: its chunks are read again.
    onRejoin: (region) => chunks.readAgain(region),
    onJoined(region) {
      options.onRegionJoined?.(region);
      if (last) chunks.pump(last.x, last.y);
    },
    onLeft: (region) => chunks.drop(region),
    onConnected: options.onConnected,
    closed: () => closed,
  });
  const unsent = createUnsentEdits(options.playerId);
  const chunks = createBlockChunks(db, {
    emit, now, own, view, regionJoined: regions.joined, last: () => last, closed: () => closed, onActivity: options.onActivity, unsent,
  });

  function follow(x: number, y: number): void {
    if (closed) return;
    const moved = !last || Math.floor(x / TILE_SIZE) !== Math.floor(last.x / TILE_SIZE) || Math.floor(y / TILE_SIZE) !== Math.floor(last.y / TILE_SIZE);
    last = { x, y };
    if (moved) {
      const { width, height } = view();
      const near = { x0: x - width / 2 - CHUNK_MARGIN_PX, y0: y - height / 2 - CHUNK_MARGIN_PX, x1: x + width / 2 + CHUNK_MARGIN_PX, y1: y + height / 2 + CHUNK_MARGIN_PX };
      const keep = REGION_KEEP_PX;
      regions.leaveUnless((region) => regionMeets(region, near.x0 - keep, near.y0 - keep, near.x1 + keep, near.y1 + keep));
      const around = chunksAround(x, y, width / 2, height / 2, CHUNK_MARGIN_PX);
      for (const { cx, cy } of around) {
        const region = regionOfChunk(cx, cy);
        if (!regions.holds(region)) regions.join(region);
      }
      // Chunks never shown and no longer wanted are forgotten (shown ones stay while their region is heard).
      chunks.forgetUnwanted(new Set(around.map(({ cx, cy }) => chunkName(cx, cy))));
    }
    chunks.pump(x, y);
  }

  const edits = createBlockEdits(db, { playerId: options.playerId, playerName: options.playerName, emit, notice: options.notice, own });
  return {
    follow,
    ...edits,
    hold: unsent.hold,
    release: unsent.release,
    giveUp(action, x, y, blockType, inventory) {
      edits.giveUp(action, x, y, blockType, inventory);
      // The tile still shows the edit: its chunk's next read shows it as the server has it.
      chunks.readTileAgain(x, y);
    },
    heldChunks: () => chunks.shown(),
    viewProgress: () => (last ? chunks.viewProgress(last.x, last.y) : { loaded: 0, total: 0 }),
    viewCurrent: () => last !== null && chunks.viewCurrent(last.x, last.y),
    topics: () => regions.topics(),
    close: async () => {
      closed = true;
      await regions.close();
    },
  };
}
