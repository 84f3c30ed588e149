/**
 * Minimap positions for players without presence: docs/game-rules.md §7's block-based query. The latest
 * block each other player placed within 5 minutes stands for that player's position.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { ONLINE_WINDOW_MS, TILE_SIZE_PX } from './constants.js';

/** A player's last known position for the minimap, in pixels. */
export interface MinimapPlayer {
  id: string;
  name: string;
  x: number;
  y: number;
  /** When the position was last confirmed, in ms since the epoch. */
  seenAt: number;
}

/** Reads the latest block per other player within the last 5 minutes. */
export async function minimapPlayersFromBlocks(db: SupabaseClient, playerId: string, now: number): Promise<MinimapPlayer[]> {
  const since = new Date(now - ONLINE_WINDOW_MS).toISOString();
  const { data, error } = await db
    .from('game_blocks')
    .select('player_id, player_name, x, y, created_at')
    .gte('created_at', since)
    .neq('player_id', playerId)
    .order('created_at', { ascending: false });
  if (error) {
    console.error('minimap query failed:', error.code, error.message);
    return [];
  }
  const latest = new Map<string, MinimapPlayer>();
  for (const row of data as Array<{ player_id: string; player_name: string; x: number; y: number; created_at: string }>) {
    if (latest.has(row.player_id)) continue;
    latest.set(row.player_id, {
      id: row.player_id,
      name: row.player_name,
      x: row.x * TILE_SIZE_PX,
      y: row.y * TILE_SIZE_PX,
      seenAt: Date.parse(row.created_at),
    });
  }
  return [...latest.values()];
}
