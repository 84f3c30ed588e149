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
-- * Work that refuses nothing runs once per statement over its transition table: counting
--   placed blocks, and removing the water chains a removal leaves without land.

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

-- A player's placed blocks are counted once per statement: one upsert per wallet in the batch.
create or replace function game_private.count_blocks() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if game_private.is_player() then
    insert into game_private.earned as e (player_id, blocks_placed)
      select n.player_id, count(*)::int from new_rows n group by n.player_id order by n.player_id
      on conflict (player_id) do update set blocks_placed = e.blocks_placed + excluded.blocks_placed;
  end if;
  return null;
end $$;
revoke all on function game_private.count_blocks() from public;

drop trigger game_blocks_earned on public.game_blocks;
drop function game_private.count_block();
create trigger game_blocks_earned after insert on public.game_blocks
  referencing new table as new_rows for each statement execute function game_private.count_blocks();

-- After a removal, every chain next to a removed block that is left without land goes too, in
-- the same transaction: the rule of 20250201000400_position_bound.sql, once per statement over
-- the neighbours of all removed blocks (row triggers also ran only after the whole statement).
create or replace function game_private.remove_orphans() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  neighbour record;
  chain_size integer;
  on_land boolean;
begin
  if game_private.removing_orphans() then return null; end if;
  perform set_config('tessera.removing_orphans', 'on', true);
  for neighbour in
    select distinct n.x, n.y
    from old_rows o
    cross join lateral (values (o.x + 1, o.y), (o.x - 1, o.y), (o.x, o.y + 1), (o.x, o.y - 1)) as n(x, y)
  loop
    select count(*), coalesce(bool_or(not c.water), false) into chain_size, on_land
      from game_private.water_chain(neighbour.x, neighbour.y) c;
    -- A chain of more than 4096 blocks is treated as supported, to bound the search.
    if chain_size > 0 and chain_size <= 4096 and not on_land then
      delete from public.game_blocks b
        using game_private.water_chain(neighbour.x, neighbour.y) c
        where b.x = c.x and b.y = c.y;
    end if;
  end loop;
  perform set_config('tessera.removing_orphans', '', true);
  return null;
end $$;

drop trigger game_blocks_orphans on public.game_blocks;
create trigger game_blocks_orphans after delete on public.game_blocks
  referencing old table as old_rows for each statement execute function game_private.remove_orphans();
