-- Every refusal a player can meet carries a stable code in the error's hint (protocol/refusals.ts):
-- the client picks the player's sentence by the code, never by the wording of the message.
-- Messages and SQLSTATEs stay as they were; a sentence that was in the hint moves to the detail.
-- test/server/refusals-sql.test.ts holds every raise to a code and every code to a raise.

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
    set x = new.attacker_x, y = new.attacker_y, slack = least(budget, game_private.movement_slack_cap()), at = now()
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

CREATE OR REPLACE FUNCTION game_private.check_block_reach()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
      using errcode = '23514', hint = 'tessera:reach';
  end if;
  return case when tg_op = 'DELETE' then old else new end;
end $function$;

CREATE OR REPLACE FUNCTION game_private.check_claim()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
    raise exception 'A claim''s first corner is its top left one.' using errcode = '23514', hint = 'tessera:claim-shape';
  end if;
  if width < 5 or height < 5 then
    raise exception 'A claim is at least 5x5 tiles; this one is %x%.', width, height using errcode = '23514', hint = 'tessera:claim-shape';
  end if;
  if width > 100 or height > 100 then
    raise exception 'A claim is at most 100 tiles wide and 100 tall; this one is %x%.', width, height using errcode = '23514', hint = 'tessera:claim-shape';
  end if;
  if new.x1 < -5000 or new.x2 > 4999 or new.y1 < -5000 or new.y2 > 4999 then
    raise exception 'That land is outside the world.' using errcode = '23514', hint = 'tessera:outside-world';
  end if;
  if not (new.x2 < -3 or new.x1 > 3 or new.y2 < -3 or new.y1 > 3) then
    raise exception 'Nobody claims spawn: keep the claim one tile clear of the spawn area.' using errcode = '23514', hint = 'tessera:spawn';
  end if;
  select * into me from public.game_players where player_id = new.owner_id;
  if not found or me.last_seen < now() - interval '30 seconds' then
    raise exception 'Only a player in the world claims land.' using errcode = '23514', hint = 'tessera:not-in-world';
  end if;
  -- The rectangle must meet the player's view (the rule of blocks, game_private.check_block_reach).
  here := game_private.judged_position(new.owner_id);
  reach := 225 * greatest(extract(epoch from now() - here.at), 0);
  if new.x2 * 32 + 32 <= here.x - 400 - reach or new.x1 * 32 >= here.x + 400 + reach
     or new.y2 * 32 + 32 <= here.y - 300 - reach or new.y1 * 32 >= here.y + 300 + reach then
    raise exception 'Stand where you can see the land you claim.' using errcode = '23514', hint = 'tessera:reach';
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
    raise exception 'This land is already claimed by %.', other.owner_name using errcode = '23514', hint = 'tessera:claimed';
  end if;
  select b.player_name into other from public.game_blocks b
    where b.x between new.x1 and new.x2 and b.y between new.y1 and new.y2
      and b.player_id <> new.owner_id and b.created_at > now() - interval '24 hours'
    limit 1;
  if found then
    raise exception '% built here in the last 24 hours: leave their blocks out of the claim.', other.player_name
      using errcode = '23514', hint = 'tessera:others-blocks';
  end if;
  available := game_private.claim_tiles_total(new.owner_id) - game_private.claim_tiles_used(new.owner_id);
  if width * height > available then
    raise exception 'This claim needs % tiles; you have % left.', width * height, greatest(available, 0)
      using errcode = '23514', hint = 'tessera:claim-budget';
  end if;
  return new;
end $function$;

CREATE OR REPLACE FUNCTION game_private.check_claim_member()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  claim public.game_claims;
begin
  new.added_at := now();
  if not game_private.is_player() then return new; end if;
  select * into claim from public.game_claims where id = new.claim_id for update;
  if not found or claim.owner_id is distinct from public.wallet_address() then
    raise exception 'new row violates row-level security policy for table "game_claim_members"' using errcode = '42501', hint = 'tessera:forbidden';
  end if;
  if new.player_id = claim.owner_id then
    raise exception 'You already own this claim.' using errcode = '23514', hint = 'tessera:own-claim';
  end if;
  if (select count(*) from public.game_claim_members m where m.claim_id = new.claim_id) >= 50 then
    raise exception 'A claim trusts at most 50 players.' using errcode = '23514', hint = 'tessera:cap';
  end if;
  return new;
end $function$;

CREATE OR REPLACE FUNCTION game_private.check_claimed_land()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  owner text;
begin
  if game_private.removing_orphans() then
    owner := game_private.claim_barring(old.x, old.y);
    if owner is not null then
      raise exception 'That would sink blocks on land claimed by %.', owner using errcode = '42501', hint = 'tessera:claimed';
    end if;
    return old;
  end if;
  if tg_op <> 'DELETE' then
    owner := game_private.claim_barring(new.x, new.y);
  end if;
  if owner is null and tg_op <> 'INSERT' and (tg_op = 'DELETE' or old.x <> new.x or old.y <> new.y) then
    owner := game_private.claim_barring(old.x, old.y);
  end if;
  if owner is not null then
    raise exception 'This land is claimed by %.', owner using errcode = '42501', hint = 'tessera:claimed';
  end if;
  return coalesce(new, old);
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
            round(extract(epoch from now() - previous.at)::numeric, 2)
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
    values (new.player_id, new.x, new.y, new.health, least(budget, game_private.movement_slack_cap()), now())
    on conflict (player_id) do update
      set x = excluded.x, y = excluded.y, health = excluded.health, slack = excluded.slack, at = excluded.at;
  return null;
end $function$;

CREATE OR REPLACE FUNCTION game_private.check_mute()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  new.created_at := now();
  -- One wallet's mutes queue here, so the count holds for concurrent ones too.
  perform pg_advisory_xact_lock(hashtext('tessera.mute'), hashtext(new.player_id));
  if (select count(*) from public.game_mutes m where m.player_id = new.player_id) >= 500 then
    raise exception 'a player mutes at most 500 wallets' using errcode = '23514', hint = 'tessera:cap';
  end if;
  return new;
end $function$;

CREATE OR REPLACE FUNCTION game_private.check_stats()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  logged bigint;
begin
  new.updated_at := now();
  new.created_at := case when tg_op = 'UPDATE' then old.created_at else now() end;
  if not game_private.is_player() then return new; end if;
  perform game_private.require_own(new.player_id, 'game_player_stats');
  select coalesce(sum(damage), 0) into logged from public.game_combat_logs where attacker_id = new.player_id;
  if new.damage_dealt > logged then
    raise exception 'damage_dealt % exceeds the % the combat log supports', new.damage_dealt, logged using errcode = '23514', hint = 'tessera:earned';
  end if;
  return new;
end $function$;

CREATE OR REPLACE FUNCTION game_private.check_support()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if not game_private.is_player() then return new; end if;
  if game_private.is_water(new.x, new.y) and not exists (
    select 1 from public.game_blocks b
    where (b.x, b.y) in ((new.x + 1, new.y), (new.x - 1, new.y), (new.x, new.y + 1), (new.x, new.y - 1))
  ) then
    raise exception 'blocks on water need a neighbouring block that leads to land' using errcode = '23514', hint = 'tessera:water';
  end if;
  return new;
end $function$;

CREATE OR REPLACE FUNCTION game_private.clean_chat()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  problem text := public.chat_message_problem(new.message);
begin
  if problem is not null then
    raise exception '%', problem using errcode = '23514', hint = 'tessera:clean-text';
  end if;
  new.message := regexp_replace(new.message, '[\u200b-\u200d\u2060\ufeff]', '', 'g');
  return new;
end $function$;

CREATE OR REPLACE FUNCTION game_private.clean_names()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  col text;
  name text;
  problem text;
  row_json jsonb := to_jsonb(new);
begin
  foreach col in array tg_argv loop
    name := row_json ->> col;
    if name is null then continue; end if;
    problem := public.player_name_problem(name);
    if problem is not null then
      raise exception '%', problem using errcode = '23514', hint = 'tessera:clean-text';
    end if;
    row_json := jsonb_set(row_json, array[col], to_jsonb(normalize(name, nfkc)));
  end loop;
  new := jsonb_populate_record(new, row_json);
  return new;
end $function$;

CREATE OR REPLACE FUNCTION game_private.fill_report()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
        'details', 'Limit: 5 reports an hour.', 'hint', 'tessera:rate')::text,
      detail = jsonb_build_object('status', 429, 'headers', jsonb_build_object('Retry-After', '3600'))::text;
  end if;
  if exists (select 1 from public.game_reports r
             where r.reporter_id = new.reporter_id and r.reported_id = new.reported_id and r.status = 'open') then
    raise exception 'you already have an open report about this player' using errcode = '23505', hint = 'tessera:open-report';
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
end $function$;

CREATE OR REPLACE FUNCTION game_private.refuse_banned()
 RETURNS trigger
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  ban public.game_bans := game_private.active_ban(public.wallet_address(), tg_argv[0]);
begin
  if ban.player_id is not null then
    raise exception 'banned from %: %', case when ban.scope = 'play' then 'play' else 'chat and voice' end, ban.reason
      using errcode = '42501',
        detail = case when ban.until is null then 'The ban does not end.' else format('The ban ends at %s.', to_char(ban.until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) end, hint = 'tessera:banned';
  end if;
  return null;
end $function$;

CREATE OR REPLACE FUNCTION game_private.refuse_block_move()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if game_private.is_player() and (new.x, new.y) is distinct from (old.x, old.y) then
    raise exception 'blocks stay where they were placed: remove the block at %,% and place one at %,% instead',
      old.x, old.y, new.x, new.y using errcode = '23514', hint = 'tessera:anchored';
  end if;
  return new;
end $function$;

CREATE OR REPLACE FUNCTION game_private.require_name_free(wallet text, name text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if game_private.held_by_other(wallet, name) then
    raise exception 'the name % is taken by another player', name using errcode = '23505',
      detail = 'Pick another name.', hint = 'tessera:name-taken';
  end if;
end $function$;

CREATE OR REPLACE FUNCTION game_private.require_operator(action text)
 RETURNS text
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  wallet text;
begin
  if coalesce(auth.role(), '') = 'service_role' then return 'service_role'; end if;
  wallet := public.wallet_address();
  if wallet is null or not exists (select 1 from game_private.operators o where o.player_id = wallet) then
    raise exception 'only operators may %', action using errcode = '42501', hint = 'tessera:operator-only';
  end if;
  return wallet;
end $function$;

CREATE OR REPLACE FUNCTION game_private.require_own(wallet text, tbl text)
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  if wallet is distinct from public.wallet_address() then
    raise exception 'new row violates row-level security policy for table "%"', tbl using errcode = '42501', hint = 'tessera:forbidden';
  end if;
end $function$;

CREATE OR REPLACE FUNCTION game_private.take_token(bucket text, burst double precision, per_second double precision)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  wallet text := public.wallet_address();
  -- Set once this transaction has taken a token from the bucket.
  taken_here text := 'tessera.took_' || replace(bucket, ' ', '_');
  available double precision;
  headers jsonb;
begin
  if wallet is null then return; end if;
  insert into game_private.rate_buckets as b (player_id, kind, tokens, updated_at)
  values (wallet, bucket, burst, now())
  on conflict (player_id, kind) do update
    set tokens = least(burst, b.tokens + per_second * greatest(extract(epoch from now() - b.updated_at), 0)),
        updated_at = now()
  returning tokens into available;
  if available < 1 then
    headers := jsonb_build_object('Retry-After', ceil((1 - available) / per_second)::int::text);
    -- The exact wait is known only when the bucket was already empty before this request; a
    -- request refused for its own size (its earlier rows took the tokens) rolls them back.
    if coalesce(current_setting(taken_here, true), '') = '' then
      headers := headers || jsonb_build_object('X-Retry-After-Ms', ceil(1000 * (1 - available) / per_second)::int::text);
    end if;
    raise sqlstate 'PGRST' using
      message = json_build_object(
        'code', 'TS429',
        'message', format('Too many %s: slow down', bucket),
        'details', format('Limit: a burst of %s, then %s per second.', burst, per_second),
        'hint', 'tessera:rate')::text,
      detail = jsonb_build_object('status', 429, 'headers', headers)::text;
  end if;
  perform set_config(taken_here, '1', true);
  update game_private.rate_buckets b set tokens = available - 1
    where b.player_id = wallet and b.kind = bucket;
end $function$;

CREATE OR REPLACE FUNCTION public.claim_budget()
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  wallet text := public.wallet_address();
  total integer;
  used integer;
begin
  if wallet is null then
    raise exception 'Sign in to claim land.' using errcode = '42501', hint = 'tessera:sign-in';
  end if;
  total := game_private.claim_tiles_total(wallet);
  used := game_private.claim_tiles_used(wallet);
  return jsonb_build_object('total', total, 'used', used, 'available', greatest(total - used, 0));
end $function$;

CREATE OR REPLACE FUNCTION game_private.fresh_presence(wallet text, action text)
 RETURNS public.game_players
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  row public.game_players;
begin
  select * into row from public.game_players where player_id = wallet;
  if not found or row.last_seen < now() - interval '30 seconds' then
    raise exception 'no fresh presence: a player who is not in the world cannot %', action
      using errcode = '23514', detail = 'Send a presence heartbeat first.', hint = 'tessera:not-in-world';
  end if;
  return row;
end $function$;

CREATE OR REPLACE FUNCTION game_private.judged_position(wallet text)
 RETURNS game_private.last_positions
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  here game_private.last_positions;
begin
  select * into here from game_private.last_positions where player_id = wallet;
  if not found then
    raise exception 'no position: a player who has not entered the world stands nowhere' using errcode = '23514',
      detail = 'Send a presence heartbeat first.', hint = 'tessera:not-in-world';
  end if;
  return here;
end $function$;
