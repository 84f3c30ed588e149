-- One lock order for a player's server state, so concurrent writes queue instead of deadlocking.
--
-- A presence write locks, in order: the player's game_players row, its game_private.earned row
-- (stamp_presence), then its game_private.last_positions row (check_movement). A hit used to lock
-- the attacker's last_positions row first and its earned rows last (count_hit), so a hit and the
-- attacker's own heartbeat, or two players hitting each other, could each hold what the other
-- waited for (40P01). A hit now locks both players' earned rows first, in player_id order, then
-- the attacker's last position: every path takes earned before last_positions, and earned rows
-- in one order.
--
-- The movement budget (how far a player may still move from its last accepted position) is one
-- function, shared by presence writes and hits.

-- What is left of the movement budget after moving from `previous` to (x, y): the slack carried
-- over plus 225 px for every second since, minus the distance. Negative means too far, too fast.
create or replace function game_private.movement_budget(previous game_private.last_positions, x double precision, y double precision)
returns double precision
language sql stable set search_path = '' as $$
  select previous.slack + 225 * greatest(extract(epoch from now() - previous.at), 0)
    - sqrt(power(x - previous.x, 2) + power(y - previous.y, 2))
$$;

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
