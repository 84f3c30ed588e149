/**
 * Shared blocks: the initial load (surroundings first), live inserts and deletes, and
 * optimistic placement and removal with rollback. Tiles are in tile units.
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../components/network.js';
import { BLOCK_PAGE_SIZE, NEAR_LOAD_RADIUS_TILES } from './constants.js';
import { describeRefusal } from './refusals.js';
import { blockRowToEvent, type BlockRow } from './rows.js';
import { canPlaceWithSupport, type SupportWorld } from './support.js';

const BLOCK_COLUMNS = 'x,y,block_type,player_id,player_name';
/** Pages requested at once while loading the rest of the world. */
const PARALLEL_PAGES = 4;

/** What the block sync needs from its surroundings. */
export interface BlockSyncOptions {
  playerId: string;
  playerName(): string;
  /** Where engine events go. */
  emit(event: NetEvent): void;
  /** Tells the player why a change was refused. */
  notice(title: string, description: string): void;
  /** The local world as the engine sees it, for the support rule. */
  world: SupportWorld;
  /** Called after every live-channel status change, with the new status. */
  onStatus?(status: string): void;
  /** Called when a player is seen building live (for the online count). */
  onActivity?(playerId: string, at: number): void;
  /** A block of the local player's was removed, heard live (by anyone). */
  onOwnRemoved?(): void;
}

/** The block side of the network session. */
export interface BlockSync {
  /** Loads every block, the tiles around (tileX, tileY) first. Replaces what was there. */
  load(tileX: number, tileY: number): Promise<number>;
  /** `inventory`: the block came out of the inventory, so a refusal gives it back. */
  place(x: number, y: number, blockType: string, inventory: boolean): Promise<boolean>;
  remove(x: number, y: number, blockType: string | null): Promise<boolean>;
  close(): Promise<void>;
}

/** Starts the live block subscription and returns the block operations. */
export function createBlockSync(db: SupabaseClient, options: BlockSyncOptions): BlockSync {
  const { emit } = options;
  /** Live events that arrive while a load is running are held and applied after it. */
  let held: NetEvent[] | null = null;
  const deliver = (event: NetEvent) => (held ? held.push(event) : emit(event));
  /**
   * Tiles ('x,y') whose block is the local player's, as last heard. A live delete carries only
   * the tile (hosted sends a delete's primary key alone under row-level security), so this is
   * how a removal of the player's block is recognised.
   */
  const own = new Set<string>();
  /** The row as an event, noting whose block the tile holds. */
  const rowEvent = (row: BlockRow) => {
    const key = `${row.x},${row.y}`;
    if (row.player_id === options.playerId) own.add(key);
    else own.delete(key);
    return blockRowToEvent(row);
  };

  const channel: RealtimeChannel = db
    .channel('game_blocks')
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_blocks' }, (change) => {
      const row = change.new as BlockRow;
      deliver({ ...rowEvent(row), live: true });
      options.onActivity?.(row.player_id, row.created_at ? Date.parse(row.created_at) : Date.now());
    })
    .on('postgres_changes', { event: 'DELETE', schema: 'public', table: 'game_blocks' }, (change) => {
      const old = change.old as Partial<BlockRow>;
      if (typeof old.x !== 'number' || typeof old.y !== 'number') return;
      deliver({ kind: 'blockCleared', x: old.x, y: old.y, live: true });
      if (own.delete(`${old.x},${old.y}`)) options.onOwnRemoved?.();
    })
    .subscribe((status) => options.onStatus?.(status));

  async function load(tileX: number, tileY: number): Promise<number> {
    // Its own list: a load begun while another runs (a resync) must not end the other's hold.
    const holding: NetEvent[] = [];
    held = holding;
    try {
      const near = await db
        .from('game_blocks')
        .select(BLOCK_COLUMNS)
        .gte('x', tileX - NEAR_LOAD_RADIUS_TILES)
        .lte('x', tileX + NEAR_LOAD_RADIUS_TILES)
        .gte('y', tileY - NEAR_LOAD_RADIUS_TILES)
        .lte('y', tileY + NEAR_LOAD_RADIUS_TILES)
        .limit(BLOCK_PAGE_SIZE * 10);
      if (near.error) throw near.error;
      emit({ kind: 'blocksReset' });
      own.clear();
      for (const row of near.data as BlockRow[]) emit(rowEvent(row));
      const total = await loadAllPages();
      for (const event of holding) emit(event);
      return total;
    } finally {
      if (held === holding) held = null;
    }
  }

  /** Loads the whole table in pages, several at a time; rows already loaded are set again harmlessly. */
  async function loadAllPages(): Promise<number> {
    let loaded = 0;
    for (let page = 0; ; page += PARALLEL_PAGES) {
      const batches = await Promise.all(
        Array.from({ length: PARALLEL_PAGES }, (_, i) => {
          const from = (page + i) * BLOCK_PAGE_SIZE;
          return db.from('game_blocks').select(BLOCK_COLUMNS).order('x').order('y').range(from, from + BLOCK_PAGE_SIZE - 1);
        }),
      );
      for (const batch of batches) {
        if (batch.error) throw batch.error;
        for (const row of batch.data as BlockRow[]) emit(rowEvent(row));
        loaded += batch.data.length;
        if (batch.data.length < BLOCK_PAGE_SIZE) return loaded;
      }
    }
  }

  /** After a refusal, shows the tile as the server has it and tells the player why. */
  async function refuse(action: 'place' | 'remove', x: number, y: number, blockType: string, inventory: boolean, error: { code?: string; message?: string }) {
    const reason = describeRefusal(error, 'block');
    console.error(`block ${action} refused at ${x},${y}:`, error.code, error.message);
    emit({ kind: 'blockRefused', action, x, y, blockType, reason, inventory });
    const current = await db.from('game_blocks').select(BLOCK_COLUMNS).eq('x', x).eq('y', y).maybeSingle();
    if (current.data) emit(rowEvent(current.data as BlockRow));
    else if (!current.error) {
      own.delete(`${x},${y}`);
      emit({ kind: 'blockCleared', x, y });
    }
    options.notice(action === 'place' ? 'Block Not Placed' : 'Block Not Removed', reason);
  }

  async function place(x: number, y: number, blockType: string, inventory: boolean): Promise<boolean> {
    if (!canPlaceWithSupport(options.world, x, y)) {
      await refuse('place', x, y, blockType, inventory, { message: 'Blocks on water need a neighbouring block that leads to land.' });
      return false;
    }
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
    const { data, error } = await db.from('game_blocks').delete().eq('x', x).eq('y', y).select(BLOCK_COLUMNS);
    if (error) {
      if (blockType) await refuse('remove', x, y, blockType, true, error);
      else options.notice('Block Not Removed', describeRefusal(error, 'block'));
      return false;
    }
    // Blocks the removal left floating are removed by the server in the same transaction
    // (20250201000400_position_bound.sql); their deletes arrive on the live channel.
    const removed = data as BlockRow[];
    for (const row of removed) emit({ kind: 'blockCleared', x: row.x, y: row.y });
    return removed.length > 0;
  }

  return {
    load,
    place,
    remove,
    close: async () => {
      await db.removeChannel(channel);
    },
  };
}
