-- One position per player for every rule: the server's record of where it last accepted the
-- player, game_private.last_positions.
--
-- A hit carries the attacker's position (attacker_x, attacker_y); it is judged against the
-- movement budget and the safe zone and recorded in last_positions (check_attack), but the
-- presence row keeps the heartbeat's position. The other rules read the presence row, so an
-- attacker whose heartbeats stayed on a spawn tile hit a player just outside from a position
-- outside spawn, while that player's counter-hits were judged on the spawn tile and refused
-- ("no combat in the safe zone").
--
-- Every rule that judges where a player stands now reads last_positions: the victim of a hit,
-- the reach of blocks, the view of a claim, the tile of a voice clip and the reporter's tile in
-- a report. Heartbeats (check_movement) and hits (check_attack) both write it, so it is always
-- the newer of the two, and both players of a fight are judged on the same record. Its `at` is
-- the age that widens the reach. Whether a player is in the world at all is still its presence
-- row (written within 30 s, game_private.fresh_presence). A hit writes nothing to the presence
-- row: that would count as a heartbeat (play time, the presence broadcast) that nobody sent.

-- Where the server last placed `wallet`: the one position every rule judges.
create or replace function game_private.judged_position(wallet text) returns game_private.last_positions
language plpgsql stable security definer set search_path = '' as $$
declare
  here game_private.last_positions;
begin
  select * into here from game_private.last_positions where player_id = wallet;
  if not found then
    raise exception 'no position: a player who has not entered the world stands nowhere' using errcode = '23514',
      hint = 'Send a presence heartbeat first.';
  end if;
  return here;
end $$;
revoke all on function game_private.judged_position(text) from public;

create or replace function game_private.check_attack() returns trigger
language plpgsql security definer set search_path = '' as $$
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
      using errcode = '23514', hint = 'Players move at most 3 px per 16 ms.';
  end if;
  update game_private.last_positions
    set x = new.attacker_x, y = new.attacker_y, slack = least(budget, game_private.movement_slack_cap()), at = now()
    where player_id = new.attacker_id;
  select * into victim from public.game_players where player_id = new.victim_id;
  if not found or victim.last_seen < now() - interval '30 seconds' then
    raise exception 'victim is not present' using errcode = '23514';
  end if;
  -- The victim stands where the server last placed it: by its heartbeat or by its own last hit.
  victim_at := game_private.judged_position(new.victim_id);
  if game_private.in_spawn(new.attacker_x, new.attacker_y) or game_private.in_spawn(victim_at.x, victim_at.y) then
    raise exception 'no combat in the safe zone' using errcode = '23514';
  end if;
  distance := sqrt(power(new.attacker_x - victim_at.x, 2) + power(new.attacker_y - victim_at.y, 2));
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
  new.x := floor(victim_at.x / 32.0);
  new.y := floor(victim_at.y / 32.0);
  return new;
end $$;

create or replace function game_private.check_block_reach() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  tile_x integer;
  tile_y integer;
  here game_private.last_positions;
  reach double precision;
begin
  if not game_private.is_player() or game_private.removing_orphans() then
    return case when tg_op = 'DELETE' then old else new end;
  end if;
  if tg_op = 'DELETE' then tile_x := old.x; tile_y := old.y; else tile_x := new.x; tile_y := new.y; end if;
  perform game_private.fresh_presence(public.wallet_address(), 'build');
  here := game_private.judged_position(public.wallet_address());
  reach := 225 * greatest(extract(epoch from now() - here.at), 0);
  -- Tile (x, y) covers pixels [32x, 32x + 32): it is in view when that square meets the canvas.
  if tile_x * 32 + 32 <= here.x - 400 - reach or tile_x * 32 >= here.x + 400 + reach
     or tile_y * 32 + 32 <= here.y - 300 - reach or tile_y * 32 >= here.y + 300 + reach then
    raise exception 'block %,% is out of reach: players build only within their 800x600 view', tile_x, tile_y
      using errcode = '23514';
  end if;
  return case when tg_op = 'DELETE' then old else new end;
end $$;

create or replace function game_private.place_voice() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  here game_private.last_positions;
begin
  if not game_private.is_player() then return new; end if;
  perform game_private.require_own(new.player_id, 'game_voice_messages');
  perform game_private.fresh_presence(new.player_id, 'speak');
  here := game_private.judged_position(new.player_id);
  new.x := floor(here.x / 32.0);
  new.y := floor(here.y / 32.0);
  return new;
end $$;

create or replace function game_private.check_claim() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  me public.game_players;
  here game_private.last_positions;
  reach double precision;
  width integer := new.x2 - new.x1 + 1;
  height integer := new.y2 - new.y1 + 1;
  other record;
  available integer;
begin
  new.created_at := now();
  if not game_private.is_player() then return new; end if;
  perform game_private.require_own(new.owner_id, 'game_claims');
  perform pg_advisory_xact_lock(hashtext('tessera.claims'));
  if new.x1 > new.x2 or new.y1 > new.y2 then
    raise exception 'A claim''s first corner is its top left one.' using errcode = '23514';
  end if;
  if width < 5 or height < 5 then
    raise exception 'A claim is at least 5x5 tiles; this one is %x%.', width, height using errcode = '23514';
  end if;
  if width > 100 or height > 100 then
    raise exception 'A claim is at most 100 tiles wide and 100 tall; this one is %x%.', width, height using errcode = '23514';
  end if;
  if new.x1 < -5000 or new.x2 > 4999 or new.y1 < -5000 or new.y2 > 4999 then
    raise exception 'That land is outside the world.' using errcode = '23514';
  end if;
  if not (new.x2 < -3 or new.x1 > 3 or new.y2 < -3 or new.y1 > 3) then
    raise exception 'Nobody claims spawn: keep the claim one tile clear of the spawn area.' using errcode = '23514';
  end if;
  select * into me from public.game_players where player_id = new.owner_id;
  if not found or me.last_seen < now() - interval '30 seconds' then
    raise exception 'Only a player in the world claims land.' using errcode = '23514';
  end if;
  -- The rectangle must meet the player's view (the rule of blocks, game_private.check_block_reach).
  here := game_private.judged_position(new.owner_id);
  reach := 225 * greatest(extract(epoch from now() - here.at), 0);
  if new.x2 * 32 + 32 <= here.x - 400 - reach or new.x1 * 32 >= here.x + 400 + reach
     or new.y2 * 32 + 32 <= here.y - 300 - reach or new.y1 * 32 >= here.y + 300 + reach then
    raise exception 'Stand where you can see the land you claim.' using errcode = '23514';
  end if;
  new.owner_name := me.player_name;
  -- Lapsed claims in the way give way.
  delete from public.game_claims c
    where box(point(c.x1, c.y1), point(c.x2, c.y2)) && box(point(new.x1, new.y1), point(new.x2, new.y2))
      and not public.claim_holds(c.owner_id);
  select c.owner_name into other from public.game_claims c
    where box(point(c.x1, c.y1), point(c.x2, c.y2)) && box(point(new.x1, new.y1), point(new.x2, new.y2))
    limit 1;
  if found then
    raise exception 'This land is already claimed by %.', other.owner_name using errcode = '23514';
  end if;
  select b.player_name into other from public.game_blocks b
    where b.x between new.x1 and new.x2 and b.y between new.y1 and new.y2
      and b.player_id <> new.owner_id and b.created_at > now() - interval '24 hours'
    limit 1;
  if found then
    raise exception '% built here in the last 24 hours: leave their blocks out of the claim.', other.player_name
      using errcode = '23514';
  end if;
  available := game_private.claim_tiles_total(new.owner_id) - game_private.claim_tiles_used(new.owner_id);
  if width * height > available then
    raise exception 'This claim needs % tiles; you have % left.', width * height, greatest(available, 0)
      using errcode = '23514';
  end if;
  return new;
end $$;

create or replace function game_private.fill_report() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  here game_private.last_positions;
  recent integer;
begin
  if coalesce(auth.role(), '') = 'authenticated' then
    perform game_private.require_own(new.reporter_id, 'game_reports');
  end if;
  -- One reporter's reports queue here, so the limits hold for concurrent ones too.
  perform pg_advisory_xact_lock(hashtext('tessera.report'), hashtext(new.reporter_id));
  select count(*) into recent from public.game_reports r
    where r.reporter_id = new.reporter_id and r.created_at > now() - interval '1 hour';
  if recent >= 5 then
    raise sqlstate 'PGRST' using
      message = json_build_object('code', 'TS429', 'message', 'Too many reports: slow down',
        'details', 'Limit: 5 reports an hour.', 'hint', 'Wait a while and try again.')::text,
      detail = jsonb_build_object('status', 429, 'headers', jsonb_build_object('Retry-After', '3600'))::text;
  end if;
  if exists (select 1 from public.game_reports r
             where r.reporter_id = new.reporter_id and r.reported_id = new.reported_id and r.status = 'open') then
    raise exception 'you already have an open report about this player' using errcode = '23505';
  end if;
  new.status := 'open';
  new.created_at := now();
  new.resolved_by := null;
  new.resolved_at := null;
  -- The reporter's tile: where the server last placed it, while it is in the world.
  if exists (select 1 from public.game_players p where p.player_id = new.reporter_id) then
    select * into here from game_private.last_positions p where p.player_id = new.reporter_id;
  end if;
  new.context := jsonb_build_object(
    'reported_name', (select h.player_name from public.game_held_names h where h.player_id = new.reported_id),
    'reporter_tile', case when here.player_id is null then null
                          else jsonb_build_object('x', floor(here.x / 32.0), 'y', floor(here.y / 32.0)) end,
    'chat', coalesce((select jsonb_agg(jsonb_build_object('name', c.player_name, 'message', c.message, 'at', c.created_at) order by c.created_at)
                      from (select * from public.game_chat_messages m where m.player_id = new.reported_id
                            order by m.created_at desc limit 20) c), '[]'),
    'edits', coalesce((select jsonb_agg(jsonb_build_object('x', e.x, 'y', e.y, 'before', e.before_type, 'before_owner', e.before_owner,
                                                            'after', e.after_type, 'at', e.created_at) order by e.id)
                       from (select * from public.game_block_edits b
                             where b.actor_id = new.reported_id and b.created_at > now() - interval '30 minutes'
                               and here.player_id is not null
                               and abs(b.x - floor(here.x / 32.0)) <= 32 and abs(b.y - floor(here.y / 32.0)) <= 32
                             order by b.id desc limit 100) e), '[]'));
  return new;
end $$;
