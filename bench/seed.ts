/**
 * Worlds for benchmarks, written straight into a DATA_DIR before its server starts: a new player
 * otherwise enters at spawn (the movement rules allow nothing else) and would need minutes to
 * walk to where a case wants it.
 */
import { startDatabase } from '../server/db/index.js';

/** Writes a presence row for each wallet at its start position, before the server runs. */
export async function seedPresence(dataDir: string, starts: Array<{ address: string; name: string; x: number; y: number }>): Promise<void> {
  const db = await startDatabase({ dataDir, migrationsDir: 'supabase/migrations' });
  try {
    const rows = JSON.stringify(starts.map(({ address, name, x, y }) => ({ player_id: address, player_name: name, x, y })));
    await db.query(
      `insert into public.game_players (player_id, player_name, x, y)
       select player_id, player_name, x, y from jsonb_to_recordset($1::jsonb) as r(player_id text, player_name text, x int, y int)`,
      [rows],
    );
  } finally {
    await db.close();
  }
}
