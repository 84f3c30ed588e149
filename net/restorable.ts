/**
 * The local player's blocks that others removed in the last 30 minutes within view, read from
 * the server's edit history (game_block_edits) every few seconds. Only tiles that are empty
 * now count: restoring puts blocks back into empty tiles only, as ordinary placements.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../components/network.js';
import { RESTORE_REFRESH_MS, RESTORE_WINDOW_MS, VIEW_HALF_HEIGHT_TILES, VIEW_HALF_WIDTH_TILES } from './constants.js';
import type { SupportWorld } from './support.js';

/** Most history rows read per look-up (a view holds 27 x 21 = 567 tiles). */
const HISTORY_ROWS = 600;

/** A row of game_block_edits as read here. */
interface RemovalRow {
  x: number;
  y: number;
  before_type: string;
}

/** What the look-up needs. */
export interface RestorableOptions {
  playerId: string;
  /** The local player's tile. */
  tile(): { x: number; y: number };
  world: Pick<SupportWorld, 'hasBlock'>;
  emit(event: NetEvent): void;
  now?(): number;
}

/** Reads the removals once: newest first, one per tile, empty tiles only. */
export async function findRestorable(db: SupabaseClient, options: RestorableOptions): Promise<{ x: number; y: number; blockType: string }[]> {
  const { x, y } = options.tile();
  const since = new Date((options.now ?? Date.now)() - RESTORE_WINDOW_MS).toISOString();
  const { data, error } = await db
    .from('game_block_edits')
    .select('x,y,before_type')
    .eq('before_owner', options.playerId)
    .is('after_type', null)
    .neq('actor_id', options.playerId)
    .gte('created_at', since)
    .gte('x', x - VIEW_HALF_WIDTH_TILES)
    .lte('x', x + VIEW_HALF_WIDTH_TILES)
    .gte('y', y - VIEW_HALF_HEIGHT_TILES)
    .lte('y', y + VIEW_HALF_HEIGHT_TILES)
    .order('created_at', { ascending: false })
    .limit(HISTORY_ROWS);
  if (error) throw error;
  const seen = new Set<string>();
  const blocks: { x: number; y: number; blockType: string }[] = [];
  for (const row of data as RemovalRow[]) {
    const key = `${row.x},${row.y}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!options.world.hasBlock(row.x, row.y)) blocks.push({ x: row.x, y: row.y, blockType: row.before_type });
  }
  return blocks;
}

/** Looks the removals up now and every RESTORE_REFRESH_MS, emitting `restorable` events; `stop()` ends it. */
export function followRestorable(db: SupabaseClient, options: RestorableOptions): { stop(): void; refresh(): Promise<void> } {
  const refresh = async () => {
    try {
      options.emit({ kind: 'restorable', blocks: await findRestorable(db, options) });
    } catch (error) {
      console.error('reading the edit history failed:', error);
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), RESTORE_REFRESH_MS);
  return { stop: () => clearInterval(timer), refresh };
}
