-- Position-bound writes: a player acts only where the server knows it stands.
--
-- * Fresh presence: building, removing, sending a voice clip and attacking need the player's
--   own presence row written within the last 30 s.
-- * Blocks: a block is placed, changed or removed only inside the player's view as the server
--   knows it: the 800x600 canvas centred on the presence row's position, widened on every side
--   by the movement budget since that row (225 px/s of its age, the movement rule's speed).
-- * Voice: a clip's x/y is the sender's tile from its presence row, set by the server.
-- * Combat: a hit carries the attacker's position (attacker_x, attacker_y, pixels). It must be
--   reachable from the attacker's last accepted position within its movement budget (the rule of
--   check_movement, which it then spends), and the victim must stand within 64 px of it plus
--   what 250 ms of walking explains (46.875 px at 187.5 px/s): 110.875 px. Clients near others
--   in the PvP zone send their presence every 250 ms, so the victim's row is that fresh.
-- * Support: a block on water needs a neighbouring block; removing a block removes, in the same
--   transaction, every chain of blocks on water it leaves without a link to land.

create or replace function game_private.fresh_presence(wallet text, action text) returns public.game_players
language plpgsql stable security definer set search_path = '' as $$
declare
  row public.game_players;
begin
  select * into row from public.game_players where player_id = wallet;
  if not found or row.last_seen < now() - interval '30 seconds' then
    raise exception 'no fresh presence: a player who is not in the world cannot %', action
      using errcode = '23514', hint = 'Send a presence heartbeat first.';
  end if;
  return row;
end $$;

-- Set while the support rule removes orphans, so their deletes are not judged as a player's.
create or replace function game_private.removing_orphans() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(current_setting('tessera.removing_orphans', true), '') = 'on'
$$;

-- ---------------------------------------------------------------------------------------------
-- Blocks within view.
create or replace function game_private.check_block_reach() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  tile_x integer;
  tile_y integer;
  me public.game_players;
  reach double precision;
begin
  if not game_private.is_player() or game_private.removing_orphans() then
    return case when tg_op = 'DELETE' then old else new end;
  end if;
  if tg_op = 'DELETE' then tile_x := old.x; tile_y := old.y; else tile_x := new.x; tile_y := new.y; end if;
  me := game_private.fresh_presence(public.wallet_address(), 'build');
  reach := 225 * greatest(extract(epoch from now() - me.last_seen), 0);
  -- Tile (x, y) covers pixels [32x, 32x + 32): it is in view when that square meets the canvas.
  if tile_x * 32 + 32 <= me.x - 400 - reach or tile_x * 32 >= me.x + 400 + reach
     or tile_y * 32 + 32 <= me.y - 300 - reach or tile_y * 32 >= me.y + 300 + reach then
    raise exception 'block %,% is out of reach: players build only within their 800x600 view', tile_x, tile_y
      using errcode = '23514';
  end if;
  return case when tg_op = 'DELETE' then old else new end;
end $$;

create trigger game_blocks_reach before insert or update or delete on public.game_blocks
  for each row execute function game_private.check_block_reach();

-- Orphans' deletes take no tokens from the remover's bucket.
create or replace function game_private.limit_rate() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if game_private.is_player() and not game_private.removing_orphans() then
    perform game_private.take_token(tg_argv[0], tg_argv[1]::double precision, tg_argv[2]::double precision);
  end if;
  return coalesce(new, old);
end $$;

-- ---------------------------------------------------------------------------------------------
-- Voice clips at the sender's tile.
create or replace function game_private.place_voice() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  me public.game_players;
begin
  if not game_private.is_player() then return new; end if;
  perform game_private.require_own(new.player_id, 'game_voice_messages');
  me := game_private.fresh_presence(new.player_id, 'speak');
  new.x := floor(me.x / 32.0);
  new.y := floor(me.y / 32.0);
  return new;
end $$;

create trigger game_voice_messages_position before insert on public.game_voice_messages
  for each row execute function game_private.place_voice();

-- ---------------------------------------------------------------------------------------------
-- Combat on fresh positions.
--
-- One lock order for a player's server state, so concurrent writes queue instead of
-- deadlocking (40P01). A presence write locks the player's game_players row, its
-- game_private.earned row (stamp_presence), then its game_private.last_positions row
-- (check_movement). A hit locks both players' earned rows first, in player_id order, then the
-- attacker's last position: every path takes earned before last_positions, and earned rows in
-- one order.
alter table public.game_combat_logs add column attacker_x integer, add column attacker_y integer;

create or replace function game_private.check_attack() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  attacker public.game_players;
  victim public.game_players;
  previous game_private.last_positions;
  budget double precision;
  distance double precision;
begin
  new.created_at := now();
  if not game_private.is_player() then return new; end if;
  perform game_private.require_own(new.attacker_id, 'game_combat_logs');
  if new.attacker_id = new.victim_id then
    raise exception 'nobody attacks themselves' using errcode = '23514';
  end if;
  if new.damage is distinct from 25 or new.weapon_type is distinct from 'sword' then
    raise exception 'a hit is a sword for 25 damage' using errcode = '23514';
  end if;
  if new.attacker_x is null or new.attacker_y is null then
    raise exception 'a hit carries the attacker''s position (attacker_x, attacker_y)' using errcode = '23514';
  end if;
  -- Concurrent hits by one attacker on one victim queue here, so the cooldown holds for them too.
  perform pg_advisory_xact_lock(hashtext('tessera.attack'), hashtext(new.attacker_id || '>' || new.victim_id));
  attacker := game_private.fresh_presence(new.attacker_id, 'fight');
  -- Both players' earned rows, in player_id order, before the attacker's last position.
  insert into game_private.earned (player_id) values (new.attacker_id), (new.victim_id)
    on conflict (player_id) do nothing;
  perform 1 from game_private.earned where player_id in (new.attacker_id, new.victim_id)
    order by player_id for update;
  -- The attacker's position must be reachable from its last accepted one; the hit spends it.
  select * into previous from game_private.last_positions where player_id = new.attacker_id for update;
  budget := game_private.movement_budget(previous, new.attacker_x, new.attacker_y);
  if budget < 0 then
    raise exception 'implausible attacker position: % px from the last one',
      round(sqrt(power(new.attacker_x - previous.x, 2) + power(new.attacker_y - previous.y, 2)))
      using errcode = '23514', hint = 'Players move at most 3 px per 16 ms.';
  end if;
  update game_private.last_positions
    set x = new.attacker_x, y = new.attacker_y, slack = least(budget, 96), at = now()
    where player_id = new.attacker_id;
  select * into victim from public.game_players where player_id = new.victim_id;
  if not found or victim.last_seen < now() - interval '30 seconds' then
    raise exception 'victim is not present' using errcode = '23514';
  end if;
  if game_private.in_spawn(new.attacker_x, new.attacker_y) or game_private.in_spawn(victim.x, victim.y) then
    raise exception 'no combat in the safe zone' using errcode = '23514';
  end if;
  distance := sqrt(power(new.attacker_x - victim.x, 2) + power(new.attacker_y - victim.y, 2));
  if distance > 64 + 187.5 * 0.25 then
    raise exception 'victim is out of range: % px', round(distance) using errcode = '23514',
      hint = 'Combat range is 64 px, plus 250 ms of movement.';
  end if;
  if exists (
    select 1 from public.game_combat_logs l
    where l.attacker_id = new.attacker_id and l.victim_id = new.victim_id
      and l.created_at > now() - interval '1000 milliseconds'
  ) then
    raise exception 'attack cooldown: one hit per 1000 ms' using errcode = '23514';
  end if;
  new.victim_name := victim.player_name;
  new.x := floor(victim.x / 32.0);
  new.y := floor(victim.y / 32.0);
  return new;
end $$;

-- ---------------------------------------------------------------------------------------------
-- The support rule (net/support.ts mirrors the placement half for instant feedback).

-- The blocks linked to the block at (x, y) through blocks on water, up to 4097 of them.
create or replace function game_private.water_chain(start_x integer, start_y integer)
returns table (x integer, y integer, water boolean)
language sql stable security definer set search_path = '' as $$
  with recursive chain(x, y, water) as (
    select b.x, b.y, game_private.is_water(b.x, b.y) from public.game_blocks b
      where b.x = start_x and b.y = start_y
    union
    select b.x, b.y, game_private.is_water(b.x, b.y)
    from chain c
    cross join lateral (values (c.x + 1, c.y), (c.x - 1, c.y), (c.x, c.y + 1), (c.x, c.y - 1)) as n(x, y)
    join public.game_blocks b on b.x = n.x and b.y = n.y
    where c.water
  )
  select chain.x, chain.y, chain.water from chain limit 4097
$$;

-- Placing on water needs a block on a neighbouring tile.
create or replace function game_private.check_support() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not game_private.is_player() then return new; end if;
  if game_private.is_water(new.x, new.y) and not exists (
    select 1 from public.game_blocks b
    where (b.x, b.y) in ((new.x + 1, new.y), (new.x - 1, new.y), (new.x, new.y + 1), (new.x, new.y - 1))
  ) then
    raise exception 'blocks on water need a neighbouring block that leads to land' using errcode = '23514';
  end if;
  return new;
end $$;

create trigger game_blocks_support before insert on public.game_blocks
  for each row execute function game_private.check_support();

-- After a removal, every chain next to a removed block that is left without land goes too, in
-- the same transaction: once per statement, over the neighbours of all removed blocks.
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

create trigger game_blocks_orphans after delete on public.game_blocks
  referencing old table as old_rows for each statement execute function game_private.remove_orphans();

revoke all on function game_private.fresh_presence(text, text), game_private.removing_orphans(),
  game_private.water_chain(integer, integer) from public;
