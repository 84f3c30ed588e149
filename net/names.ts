/**
 * Held names: whether another wallet holds a name (the server refuses it then; see
 * supabase/migrations/20250201000200_held_names.sql), so the landing can say so before the
 * player enters the world.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { HELD_NAME_DAYS, nameKey } from '../components/text.js';

/** Whether a wallet other than `playerId` holds `name`; false when it cannot be told (the server still decides). */
export async function isNameTaken(db: SupabaseClient, name: string, playerId: string, now = Date.now()): Promise<boolean> {
  const since = new Date(now - HELD_NAME_DAYS * 24 * 3600 * 1000).toISOString();
  const { data, error } = await db
    .from('game_held_names')
    .select('player_id')
    .eq('name_key', nameKey(name))
    .neq('player_id', playerId)
    .gt('held_at', since)
    .limit(1);
  if (error) {
    console.error('name check failed:', error.code, error.message);
    return false;
  }
  return data.length > 0;
}
