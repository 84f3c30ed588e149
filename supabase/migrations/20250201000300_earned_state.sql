-- Earned state: a player's health and level are the server's, never the client's.
--
-- Health follows the combat log. Each logged hit takes its damage from the victim, at most one
-- hit per 1000 ms counting (the game's damage cooldown), with a floor of 0. A defeated player
-- (health 0) respawns: the first presence row it writes on a spawn tile brings it back to full
-- health (100). The game has no other healing. A presence write carries a health column, but the
-- server keeps its own value there: whatever the client sends is replaced, as created_at is.
--
-- Level is earned from what the player did, counted as the server stores it:
--   experience = blocks placed + 5 x hits landed
--   level      = 1 + floor(sqrt(experience / 10))
-- so level 2 takes 10 experience (ten blocks, or two hits), level 3 takes 40, level 4 takes 90,
-- level n takes 10 (n - 1)^2: each level asks for more than the last. The presence row's level
-- is always the earned one, and the client shows the level its heartbeat's answer carries.

create table game_private.earned (
  player_id text primary key,
  health integer not null default 100,
  last_hit_at timestamptz,
  blocks_placed integer not null default 0,
  hits_landed integer not null default 0
);

-- The level for a count of placed blocks and landed hits.
create or replace function public.earned_level(blocks_placed integer, hits_landed integer) returns integer
language sql immutable set search_path = '' as $$
  select 1 + floor(sqrt((blocks_placed + 5 * hits_landed) / 10.0))::integer
$$;
revoke all on function public.earned_level(integer, integer) from public;
grant execute on function public.earned_level(integer, integer) to anon, authenticated, service_role;

-- Presence: server time, one's own row, and the server's health and level. A defeated player's
-- row on a spawn tile is its respawn; the movement check reads tessera.respawned to let it in.
create or replace function game_private.stamp_presence() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  record game_private.earned;
begin
  new.last_seen := now();
  new.updated_at := now();
  if not game_private.is_player() then return new; end if;
  perform game_private.require_own(new.player_id, 'game_players');
  insert into game_private.earned (player_id) values (new.player_id) on conflict (player_id) do nothing;
  select * into record from game_private.earned where player_id = new.player_id for update;
  if record.health = 0 and game_private.in_spawn(new.x, new.y) then
    update game_private.earned set health = 100 where player_id = new.player_id returning * into record;
    perform set_config('tessera.respawned', new.player_id, true);
  end if;
  new.health := record.health;
  new.max_health := 100;
  new.level := public.earned_level(record.blocks_placed, record.hits_landed);
  return new;
end $$;

-- What is left of the movement budget after moving from `previous` to (x, y): the slack carried
-- over plus 225 px for every second since, minus the distance. Negative means too far, too fast.
-- One function, shared by presence writes and hits (20250201000400_position_bound.sql).
create or replace function game_private.movement_budget(previous game_private.last_positions, x double precision, y double precision)
returns double precision
language sql stable set search_path = '' as $$
  select previous.slack + 225 * greatest(extract(epoch from now() - previous.at), 0)
    - sqrt(power(x - previous.x, 2) + power(y - previous.y, 2))
$$;

-- The movement rule of 20250101000100_authority.sql, with respawning decided by the server's
-- health: a teleport into spawn is a respawn only when stamp_presence just brought a defeated
-- player back (or the row is a rejoin, inserted after leaving).
create or replace function game_private.check_movement() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  previous game_private.last_positions;
  budget double precision := 96;
begin
  if game_private.is_player() then
    select * into previous from game_private.last_positions where player_id = new.player_id;
    if not found then
      if not game_private.in_spawn(new.x, new.y) then
        raise exception 'a new player enters the world at spawn' using errcode = '23514';
      end if;
    else
      budget := game_private.movement_budget(previous, new.x, new.y);
      if budget < 0 then
        if not game_private.in_spawn(new.x, new.y) then
          raise exception 'implausible movement: % px in % s',
            round(sqrt(power(new.x - previous.x, 2) + power(new.y - previous.y, 2))),
            round(extract(epoch from now() - previous.at)::numeric, 2)
            using errcode = '23514', hint = 'Players move at most 3 px per 16 ms.';
        end if;
        if tg_op = 'UPDATE' and coalesce(current_setting('tessera.respawned', true), '') <> new.player_id then
          raise exception 'only a defeated player respawns at spawn' using errcode = '23514';
        end if;
        budget := 96;
      end if;
    end if;
  end if;
  insert into game_private.last_positions (player_id, x, y, health, slack, at)
    values (new.player_id, new.x, new.y, new.health, least(budget, 96), now())
    on conflict (player_id) do update
      set x = excluded.x, y = excluded.y, health = excluded.health, slack = excluded.slack, at = excluded.at;
  return null;
end $$;

-- Counts what a player earns: a placed block, a landed hit; and takes a counted hit's damage.
-- Placed blocks are counted once per statement: one upsert per wallet in a batch.
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

create or replace function game_private.count_hit() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into game_private.earned as e (player_id, hits_landed) values (new.attacker_id, 1)
    on conflict (player_id) do update set hits_landed = e.hits_landed + 1;
  insert into game_private.earned as e (player_id, health, last_hit_at)
    values (new.victim_id, greatest(100 - new.damage, 0), new.created_at)
    on conflict (player_id) do update
      set health = greatest(e.health - new.damage, 0), last_hit_at = new.created_at
      where e.last_hit_at is null or e.last_hit_at <= new.created_at - interval '1000 milliseconds';
  return null;
end $$;

create trigger game_blocks_earned after insert on public.game_blocks
  referencing new table as new_rows for each statement execute function game_private.count_blocks();
create trigger game_combat_logs_earned after insert on public.game_combat_logs
  for each row execute function game_private.count_hit();
