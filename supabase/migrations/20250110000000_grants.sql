-- Tessera grants: exactly what each request role needs, so the schema works where nothing is
-- granted by default (Supabase projects since 2026 no longer grant new tables, sequences and
-- functions in public to anon, authenticated and service_role; the embedded server grants
-- nothing by default either). Row-level security then decides which rows.
--
-- Later migrations grant their own objects in the same way.

-- Signed-in players: read everything, write what the policies of 20250101000000_game_schema.sql
-- allow (upserts need insert and update).
grant select, insert, delete on public.game_chat_messages to authenticated;
grant select, insert, update, delete on public.game_blocks to authenticated;
grant select, insert, delete on public.game_voice_messages to authenticated;
grant select, insert, update, delete on public.game_players to authenticated;
grant select, insert, delete on public.game_combat_logs to authenticated;
grant select, insert, update, delete on public.game_player_stats to authenticated;

-- anon reads through row-level security, which gives it no rows: a client that is not signed in
-- gets an empty list (and Realtime's DELETE keys), not a permission error. It writes nothing.
grant select on public.game_chat_messages, public.game_blocks, public.game_voice_messages,
  public.game_players, public.game_combat_logs, public.game_player_stats to anon;

-- service_role (the secret key, bypassing row-level security) maintains the data.
grant select, insert, update, delete on public.game_chat_messages, public.game_blocks,
  public.game_voice_messages, public.game_players, public.game_combat_logs,
  public.game_player_stats to service_role;

-- The check constraints call these as the writing role; nobody else needs them.
revoke all on function public.is_player_name(text), public.is_valid_appearance(jsonb) from public;
grant execute on function public.is_player_name(text), public.is_valid_appearance(jsonb) to authenticated, service_role;

-- No table uses a sequence (keys are uuids and coordinates). The functions in game_private run
-- as triggers or inside security-definer functions and need no grant.
