/**
 * The online count of docs/game-rules.md §7: distinct players who chatted or built within the last
 * 5 minutes, plus the local player. The tables are read at start and every 30 s; activity seen
 * live in between (a chat message, a placed block) counts at once. Building is read from
 * `game_block_activity`, each player's latest block (one row per player, not one per block).
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { ONLINE_REFRESH_MS, ONLINE_WINDOW_MS } from './constants.js';

/** The live online count. */
export interface OnlineCount {
  /** Records activity by `playerId` at `at` (ms since the epoch). */
  noteActive(playerId: string, at: number): void;
  stop(): void;
}

/** Reads who chatted or built within the window: latest activity time per player. */
export async function readActivity(db: SupabaseClient, now: number): Promise<Map<string, number>> {
  const since = new Date(now - ONLINE_WINDOW_MS).toISOString();
  const [chat, blocks] = await Promise.all([
    db.from('game_chat_messages').select('player_id, created_at').gte('created_at', since),
    db.from('game_block_activity').select('player_id, created_at:placed_at').gte('placed_at', since),
  ]);
  const latest = new Map<string, number>();
  for (const result of [chat, blocks]) {
    if (result.error) console.error('online count failed:', result.error.code, result.error.message);
    for (const row of (result.data ?? []) as Array<{ player_id: string; created_at: string }>) {
      const at = Date.parse(row.created_at);
      if (!(latest.get(row.player_id)! >= at)) latest.set(row.player_id, at);
    }
  }
  return latest;
}

/** Follows the count for `playerId`, calling `onCount` whenever it changes. */
export function followOnlineCount(
  db: SupabaseClient,
  playerId: string,
  now: () => number,
  onCount: (count: number) => void,
): OnlineCount {
  const active = new Map<string, number>();
  let shown = 0;
  const publish = () => {
    const cutoff = now() - ONLINE_WINDOW_MS;
    let count = 1;
    for (const [id, at] of active) if (id !== playerId && at >= cutoff) count++;
    if (count !== shown) onCount((shown = count));
  };
  const noteActive = (id: string, at: number) => {
    if (!(active.get(id)! >= at)) active.set(id, at);
    publish();
  };
  const refresh = () =>
    void readActivity(db, now()).then((latest) => {
      for (const [id, at] of latest) noteActive(id, at);
      publish();
    });
  refresh();
  const timer = setInterval(refresh, ONLINE_REFRESH_MS);
  return { noteActive, stop: () => clearInterval(timer) };
}
