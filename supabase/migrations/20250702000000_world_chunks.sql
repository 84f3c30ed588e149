-- A world that grows (docs/architecture.md "Chunks"): a client reads the blocks of the chunks
-- around it by primary-key range and hears the changes of the regions around it only.
--
-- * game_private.tile_region(x, y) names the region of a tile, 'rx:ry': the 32x32-tile square
--   centred on a multiple of 32 tiles, the same squares as the presence regions
--   (net/regions.ts, 20250501000000_regions_around_spawn.sql) and net/chunks.ts. Anything else
--   read and heard by place (land claims, ...) can use it.
-- * Every change to game_blocks is broadcast from the database on the private topic
--   'blocks:<rx>:<ry>' of its region, one message per statement and region (at most 256 changes
--   each): {"c": [[x, y], ...], "s": [[x, y, block_type, player_id], ...]}, the tiles cleared
--   first, then the tiles set. Deletes included: hosted Realtime cannot filter the deletes of
--   postgres_changes, so a filter there would still send every removal to every player.
-- * Signed-in users may listen on 'blocks:*'; no policy lets a client send there, so only the
--   database speaks on these topics.
-- * game_block_activity keeps each player's latest placed block, for the minimap's positions and
--   the online count: a read of it is bounded by the players, not by the blocks placed.

-- The region index along one axis of tile coordinate `t`: regions are 32 tiles, centred on multiples of 32.
create or replace function game_private.tile_region_index(t integer)
returns integer
language sql immutable parallel safe
as $$ select floor((t + 16) / 32.0)::integer $$;

create or replace function game_private.tile_region(x integer, y integer)
returns text
language sql immutable parallel safe
as $$ select game_private.tile_region_index(x)::text || ':' || game_private.tile_region_index(y)::text $$;

-- Sends `cleared_tiles` ([[x, y], ...]) and `placed_tiles` ([[x, y, type, owner], ...]) to the region topics.
create function game_private.send_block_changes(cleared_tiles jsonb, placed_tiles jsonb)
returns void
language plpgsql security definer set search_path = ''
as $$
declare
  message record;
begin
  for message in
    with entries as (
      select e.value as entry, false as is_placed, e.n
      from jsonb_array_elements(cleared_tiles) with ordinality as e(value, n)
      union all
      select e.value, true, e.n
      from jsonb_array_elements(placed_tiles) with ordinality as e(value, n)
    ), tagged as (
      select entry, is_placed, n, game_private.tile_region((entry->>0)::integer, (entry->>1)::integer) as region
      from entries
    ), parted as (
      select entry, is_placed, n, region,
             (row_number() over (partition by region order by is_placed, n) - 1) / 256 as part
      from tagged
    )
    select region, part,
           jsonb_build_object(
             'c', coalesce(jsonb_agg(entry order by n) filter (where not is_placed), '[]'::jsonb),
             's', coalesce(jsonb_agg(entry order by n) filter (where is_placed), '[]'::jsonb)) as payload
    from parted
    group by region, part
    order by region, part
  loop
    perform realtime.send(message.payload, 'blocks', 'blocks:' || message.region, true);
  end loop;
end
$$;
revoke all on function game_private.send_block_changes(jsonb, jsonb) from public;

create function game_private.broadcast_placed_blocks()
returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform game_private.send_block_changes('[]'::jsonb,
    (select coalesce(jsonb_agg(jsonb_build_array(x, y, block_type, player_id)), '[]'::jsonb) from new_rows));
  return null;
end
$$;

create function game_private.broadcast_removed_blocks()
returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform game_private.send_block_changes(
    (select coalesce(jsonb_agg(jsonb_build_array(x, y)), '[]'::jsonb) from old_rows), '[]'::jsonb);
  return null;
end
$$;

create function game_private.broadcast_changed_blocks()
returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform game_private.send_block_changes(
    (select coalesce(jsonb_agg(jsonb_build_array(x, y)), '[]'::jsonb) from old_rows),
    (select coalesce(jsonb_agg(jsonb_build_array(x, y, block_type, player_id)), '[]'::jsonb) from new_rows));
  return null;
end
$$;

create trigger game_blocks_broadcast_insert after insert on public.game_blocks
  referencing new table as new_rows
  for each statement execute function game_private.broadcast_placed_blocks();
create trigger game_blocks_broadcast_delete after delete on public.game_blocks
  referencing old table as old_rows
  for each statement execute function game_private.broadcast_removed_blocks();
create trigger game_blocks_broadcast_update after update on public.game_blocks
  referencing old table as old_rows new table as new_rows
  for each statement execute function game_private.broadcast_changed_blocks();

do $$
begin
  if not exists (select 1 from pg_policies where schemaname = 'realtime' and tablename = 'messages'
                 and policyname = 'signed-in users hear block changes') then
    create policy "signed-in users hear block changes" on realtime.messages
      for select to authenticated
      using (extension = 'broadcast' and (select realtime.topic()) like 'blocks:%');
  end if;
end $$;

-- Each player's latest placed block.
create table public.game_block_activity (
  player_id text primary key,
  player_name text not null,
  x integer not null,
  y integer not null,
  placed_at timestamptz not null
);
create index game_block_activity_placed_at on public.game_block_activity (placed_at);
alter table public.game_block_activity enable row level security;
create policy "signed-in read" on public.game_block_activity for select to authenticated using (true);
grant select on public.game_block_activity to authenticated;
grant select, insert, update, delete on public.game_block_activity to service_role;

create function game_private.note_block_activity()
returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  insert into public.game_block_activity as a (player_id, player_name, x, y, placed_at)
  select distinct on (player_id) player_id, player_name, x, y, created_at
  from new_rows
  order by player_id, created_at desc
  on conflict (player_id) do update
    set player_name = excluded.player_name, x = excluded.x, y = excluded.y, placed_at = excluded.placed_at
    where excluded.placed_at >= a.placed_at;
  return null;
end
$$;

create trigger game_blocks_activity after insert on public.game_blocks
  referencing new table as new_rows
  for each statement execute function game_private.note_block_activity();

-- The latest block of each player already in the world.
insert into public.game_block_activity (player_id, player_name, x, y, placed_at)
select distinct on (player_id) player_id, player_name, x, y, created_at
from public.game_blocks
order by player_id, created_at desc;
