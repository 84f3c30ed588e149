-- Updates obey the rules inserts and deletes obey. Every table's UPDATE path, and what it may
-- change (docs/rules.md, "Changing stored rows"):
--
-- * game_blocks: a block changes only in place. Its tile is its identity: the support rule is
--   checked when a block is placed and orphans are swept after a removal, and the reach rule of
--   an update sees only the tile the block ends on, so a block moved by an UPDATE of x or y
--   could stand alone on water, or be pulled into view from a tile its owner may not touch. The
--   game never moves a block (it places and removes them), so a player's UPDATE that changes x
--   or y is refused with a sentence saying what to do instead. What an update may still change
--   (the type, or the owner's own name, of the player's own block) keeps the tile occupied, so
--   support and orphans are unaffected, and it is already judged as a placement on that tile:
--   fresh presence and reach (one tile, both ends), the blocks rate (one token), a name that is
--   clean and not held by another wallet, the server's created_at kept, and one row of edit
--   history with the block before and after. The owner stays the writer (row-level security
--   checks player_id before and after).
-- * game_players (presence heartbeat, an upsert): every column is already judged on update as
--   on insert: server time, server health and level, the movement budget (stricter on update:
--   a jump into spawn is only a respawn), the held name, the appearance and range checks;
--   region is generated. Nothing is added, so the heartbeat costs what it did.
-- * game_player_stats (upsert after a hit): damage_dealt never above the combat log, created_at
--   kept, updated_at server time, name checks, own row only: the same on insert and update.
-- * game_chat_messages, game_voice_messages, game_combat_logs: written once, never changed. No
--   UPDATE is granted and no policy allows one; the grant is also revoked here, so a project
--   whose default privileges granted UPDATE on new tables refuses it the same way (without it,
--   row-level security would only turn such an update into one of no rows).
-- * game_held_names, game_block_edits: written only by the server's triggers; players read
--   them (20250201000200_held_names.sql, 20250301000000_edit_history.sql revoke the rest).
-- * realtime.messages: no UPDATE policy (20250401000000_realtime_authorization.sql), so
--   row-level security lets a player update no row; the realtime schema is not served over REST.

-- A player's block stays on its tile. Called only for an update that changes x or y, by a
-- signed-in player (the WHEN condition); service_role and the owner may still move rows.
create or replace function game_private.refuse_block_move() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if game_private.is_player() and (new.x, new.y) is distinct from (old.x, old.y) then
    raise exception 'blocks stay where they were placed: remove the block at %,% and place one at %,% instead',
      old.x, old.y, new.x, new.y using errcode = '23514';
  end if;
  return new;
end $$;
revoke all on function game_private.refuse_block_move() from public;

-- Named to run before the other BEFORE UPDATE triggers of game_blocks (they fire in name
-- order), so a move is refused as a move, before rate, reach or name checks.
create trigger game_blocks_anchored before update on public.game_blocks
  for each row
  when ((new.x, new.y) is distinct from (old.x, old.y) and coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.refuse_block_move();

-- Rows written once: no UPDATE for players, whatever a project's default privileges granted.
revoke update on public.game_chat_messages, public.game_voice_messages, public.game_combat_logs
  from anon, authenticated;
