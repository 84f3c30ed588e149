-- Cheaper rules on game_blocks, same behaviour. A batch of blocks used to run nine row triggers
-- per block, each a PL/pgSQL call, most of them only to find that the writer is not a player
-- (service_role and the owner are not rate-limited, position-bound or name-checked).
--
-- * Checks that refuse a row stay BEFORE ROW triggers: their refusals come before the table's
--   constraints, row-level security and the primary key are checked, and a request that breaks
--   several rules must keep getting the same error. They now carry a WHEN condition, so they
--   are not called at all for writers they would let through unchanged (the functions keep
--   their own checks, so they behave the same when called).
-- * clean_names is called only for a name it would refuse or change (not NFKC normalised).
-- (Work that refuses nothing, counting placed blocks and removing the water chains a removal
-- leaves without land, runs once per statement where it is defined.)

-- The WHEN conditions spell out game_private.is_player() (coalesce(auth.role(), '') =
-- 'authenticated'): a function with its own search_path is not inlined, plain auth.role() is.

drop trigger game_blocks_clean_names on public.game_blocks;
create trigger game_blocks_clean_names before insert or update on public.game_blocks
  for each row
  when (public.player_name_problem(new.player_name) is not null or not (new.player_name is nfkc normalized))
  execute function game_private.clean_names('player_name');

drop trigger game_blocks_name_free on public.game_blocks;
create trigger game_blocks_name_free before insert or update on public.game_blocks
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.check_name_free('player_name', 'player_id');

drop trigger game_blocks_rate on public.game_blocks;
create trigger game_blocks_rate before insert or update or delete on public.game_blocks
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_rate('blocks', '40', '8');

drop trigger game_blocks_reach on public.game_blocks;
create trigger game_blocks_reach before insert or update or delete on public.game_blocks
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.check_block_reach();

drop trigger game_blocks_support on public.game_blocks;
create trigger game_blocks_support before insert on public.game_blocks
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.check_support();
