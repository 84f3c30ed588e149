-- Movement judged over the session, not between two arrivals.
--
-- The movement rule (20250201000300_earned_state.sql) kept at most 96 px of unspent budget from
-- one accepted position to the next. Under load a heartbeat can reach the server seconds late:
-- its row is accepted (the late arrival left time to spare) and re-stamped with the late arrival
-- time, so the next heartbeat, sent on time, seemed to cover seconds of walking in the short gap
-- between two arrivals and was refused ("implausible movement: 713 px in 1.42 s" for a player
-- that never walked faster than 187.5 px/s).
--
-- The budget is now what the session explains: it starts full, grows by 225 px for every second
-- of the session and is spent by every accepted move, and up to 96 + 3 * 225 = 771 px of it
-- carries over. A row may therefore arrive up to about 3 s late without its successor being
-- refused, while over any stretch longer than 3 s a player still moves at most 225 px a second:
-- a teleport across the map fails as before. A respawn into spawn still restarts from 96 px.
--
-- check_attack (20250201000400_position_bound.sql) spends the same budget and keeps the same cap.

-- The unspent movement budget a player carries from one accepted position to the next, in px.
create or replace function game_private.movement_slack_cap() returns double precision
language plpgsql immutable set search_path = '' as $$
begin
  return 96 + 3 * 225;
end $$;

create or replace function game_private.check_movement() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  previous game_private.last_positions;
  budget double precision := game_private.movement_slack_cap();
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
    values (new.player_id, new.x, new.y, new.health, least(budget, game_private.movement_slack_cap()), now())
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
    set x = new.attacker_x, y = new.attacker_y, slack = least(budget, game_private.movement_slack_cap()), at = now()
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

revoke all on function game_private.movement_slack_cap() from public;
