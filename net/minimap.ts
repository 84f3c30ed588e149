/**
 * Minimap positions for players without presence: docs/game-rules.md §7's block-based query. The latest
 * block each other player placed within 5 minutes stands for that player's position. The database
 * keeps each player's latest block in `game_block_activity` (20250702000000_world_chunks.sql), so
 * the read is one row per player within the minimap's range, however many blocks were placed.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { TILE_SIZE } from '../protocol/geometry.js';
import { MINIMAP_RANGE_TILES, ONLINE_WINDOW_MS } from './constants.js';

/** A player's last known position for the minimap, in pixels. */
export interface MinimapPlayer {
  id: string;
  name: string;
  x: number;
  y: number;
  /** When the position was last confirmed, in ms since the epoch. */
  seenAt: number;
}

/** Most players read per refresh: the most recent builders win. */
const MINIMAP_ROWS = 200;

/** Reads the latest block per other player within the last 5 minutes, on the minimap around tile (tileX, tileY). */
export async function minimapPlayersFromBlocks(db: SupabaseClient, playerId: string, now: number, tileX: number, tileY: number): Promise<MinimapPlayer[]> {
  const since = new Date(now - ONLINE_WINDOW_MS).toISOString();
  const half = MINIMAP_RANGE_TILES / 2;
  const { data, error } = await db
    .from('game_block_activity')
    .select('player_id, player_name, x, y, placed_at')
    .gte('placed_at', since)
    .neq('player_id', playerId)
    .gte('x', tileX - half)
    .lte('x', tileX + half)
    .gte('y', tileY - half)
    .lte('y', tileY + half)
    .order('placed_at', { ascending: false })
    .limit(MINIMAP_ROWS);
  if (error) {
    console.error('minimap query failed:', error.code, error.message);
    return [];
  }
  return (data as Array<{ player_id: string; player_name: string; x: number; y: number; placed_at: string }>).map((row) => ({
    id: row.player_id,
    name: row.player_name,
    x: row.x * TILE_SIZE,
    y: row.y * TILE_SIZE,
    seenAt: Date.parse(row.placed_at),
  }));
}
