-- A position is dated when the server took its request, not when the request's transaction began.
-- Under load a request can wait seconds for its caller's turn and a pooled connection: a heartbeat
-- that waited 4 s was dated 4 s after its player stood there, so the next one, on time, seemed to
-- cover 4 s of walking in the 1 s between the dates (implausible movement), and a block placed
-- beside the player seemed out of the reach of where the server placed it.
--
-- The embedded server sets tessera.waited_ms with the request's claims: how long the request
-- waited since the server took it, by the server's own clock (server/db/pool.ts); no request can
-- set it. Where nothing sets it (hosted PostgREST) a request's time is its transaction's, as
-- before. A player's recorded time never goes back: a request taken earlier but run later keeps
-- the later time.

create or replace function game_private.request_time() returns timestamptz
language plpgsql stable set search_path = '' as $$
declare
  waited double precision := coalesce(nullif(current_setting('tessera.waited_ms', true), '')::double precision, 0);
begin
  -- At most 30 s, the presence staleness: a request that waited longer finds its player gone.
  return now() - make_interval(secs => least(greatest(waited, 0), 30000) / 1000);
end $$;
revoke all on function game_private.request_time() from public;

create or replace function game_private.movement_budget(previous game_private.last_positions, x double precision, y double precision)
returns double precision
language plpgsql stable set search_path = '' as $$
begin
  return previous.slack + 225 * greatest(extract(epoch from game_private.request_time() - previous.at), 0)
    - sqrt(power(x - previous.x, 2) + power(y - previous.y, 2));
end $$;

CREATE OR REPLACE FUNCTION game_private.check_attack()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  victim public.game_players;
  victim_at game_private.last_positions;
  previous game_private.last_positions;
  budget double precision;
  distance double precision;
begin
  new.created_at := now();
  if not game_private.is_player() then return new; end if;
  perform game_private.require_own(new.attacker_id, 'game_combat_logs');
  if new.attacker_id = new.victim_id then
    raise exception 'nobody attacks themselves' using errcode = '23514', hint = 'tessera:hit';
  end if;
  if new.damage is distinct from 25 or new.weapon_type is distinct from 'sword' then
    raise exception 'a hit is a sword for 25 damage' using errcode = '23514', hint = 'tessera:hit';
  end if;
  if new.attacker_x is null or new.attacker_y is null then
    raise exception 'a hit carries the attacker''s position (attacker_x, attacker_y)' using errcode = '23514', hint = 'tessera:hit';
  end if;
  -- Concurrent hits by one attacker on one victim queue here, so the cooldown holds for them too.
  perform pg_advisory_xact_lock(hashtext('tessera.attack'), hashtext(new.attacker_id || '>' || new.victim_id));
  perform game_private.fresh_presence(new.attacker_id, 'fight');
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
      using errcode = '23514', detail = 'Players move at most 3 px per 16 ms.', hint = 'tessera:movement';
  end if;
  update game_private.last_positions
    set x = new.attacker_x, y = new.attacker_y, slack = least(budget, game_private.movement_slack_cap()),
      at = greatest(at, game_private.request_time())
    where player_id = new.attacker_id;
  select * into victim from public.game_players where player_id = new.victim_id;
  if not found or victim.last_seen < now() - interval '30 seconds' then
    raise exception 'victim is not present' using errcode = '23514', hint = 'tessera:not-in-world';
  end if;
  -- The victim stands where the server last placed it: by its heartbeat or by its own last hit.
  victim_at := game_private.judged_position(new.victim_id);
  if game_private.in_spawn(new.attacker_x, new.attacker_y) or game_private.in_spawn(victim_at.x, victim_at.y) then
    raise exception 'no combat in the safe zone' using errcode = '23514', hint = 'tessera:safe-zone';
  end if;
  distance := sqrt(power(new.attacker_x - victim_at.x, 2) + power(new.attacker_y - victim_at.y, 2));
  if distance > 64 + 187.5 * 0.25 then
    raise exception 'victim is out of range: % px', round(distance) using errcode = '23514',
      detail = 'Combat range is 64 px, plus 250 ms of movement.', hint = 'tessera:out-of-range';
  end if;
  if exists (
    select 1 from public.game_combat_logs l
    where l.attacker_id = new.attacker_id and l.victim_id = new.victim_id
      and l.created_at > now() - interval '1000 milliseconds'
  ) then
    raise exception 'attack cooldown: one hit per 1000 ms' using errcode = '23514', hint = 'tessera:cooldown';
  end if;
  new.victim_name := victim.player_name;
  new.x := floor(victim_at.x / 32.0);
  new.y := floor(victim_at.y / 32.0);
  return new;
end $function$;

CREATE OR REPLACE FUNCTION game_private.check_movement()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  previous game_private.last_positions;
  budget double precision := game_private.movement_slack_cap();
begin
  if game_private.is_player() then
    -- The budget is spent under the row's lock, as a hit spends it (check_attack).
    select * into previous from game_private.last_positions where player_id = new.player_id for update;
    if not found then
      if not game_private.in_spawn(new.x, new.y) then
        raise exception 'a new player enters the world at spawn' using errcode = '23514', hint = 'tessera:movement';
      end if;
    else
      budget := game_private.movement_budget(previous, new.x, new.y);
      if budget < 0 then
        if not game_private.in_spawn(new.x, new.y) then
          raise exception 'implausible movement: % px in % s',
            round(sqrt(power(new.x - previous.x, 2) + power(new.y - previous.y, 2))),
            round(greatest(extract(epoch from game_private.request_time() - previous.at), 0)::numeric, 2)
            using errcode = '23514', detail = 'Players move at most 3 px per 16 ms.', hint = 'tessera:movement';
        end if;
        if tg_op = 'UPDATE' and coalesce(current_setting('tessera.respawned', true), '') <> new.player_id then
          raise exception 'only a defeated player respawns at spawn' using errcode = '23514', hint = 'tessera:movement';
        end if;
        budget := 96;
      end if;
    end if;
  end if;
  insert into game_private.last_positions (player_id, x, y, health, slack, at)
    values (new.player_id, new.x, new.y, new.health, least(budget, game_private.movement_slack_cap()), game_private.request_time())
    on conflict (player_id) do update
      set x = excluded.x, y = excluded.y, health = excluded.health, slack = excluded.slack,
        at = greatest(last_positions.at, excluded.at);
  return null;
end $function$;
