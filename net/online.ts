/**
 * The online count of SPEC.md §7: distinct players who chatted or built within the last
 * 5 minutes, plus the local player, refreshed every 30 s.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { ONLINE_REFRESH_MS, ONLINE_WINDOW_MS } from './constants.js';

/** Counts distinct active players, always including `playerId`. */
export async function countOnline(db: SupabaseClient, playerId: string, now: number): Promise<number> {
  const since = new Date(now - ONLINE_WINDOW_MS).toISOString();
  const [chat, blocks] = await Promise.all([
    db.from('game_chat_messages').select('player_id').gte('created_at', since),
    db.from('game_blocks').select('player_id').gte('created_at', since),
  ]);
  const ids = new Set<string>([playerId]);
  for (const result of [chat, blocks]) {
    if (result.error) console.error('online count failed:', result.error.code, result.error.message);
    for (const row of (result.data ?? []) as Array<{ player_id: string }>) ids.add(row.player_id);
  }
  return ids.size;
}

/** Refreshes the count now and every 30 s; returns a function that stops it. */
export function followOnlineCount(db: SupabaseClient, playerId: string, now: () => number, onCount: (count: number) => void) {
  const refresh = () => void countOnline(db, playerId, now()).then(onCount);
  refresh();
  const timer = setInterval(refresh, ONLINE_REFRESH_MS);
  return () => clearInterval(timer);
}
