-- Tessera authority: the game rules that protect players, enforced by the database so that they
-- hold for every client, on the embedded server and on a hosted project alike.
--
-- Rules apply to signed-in players (role authenticated). service_role and the owner bypass them,
-- as they bypass RLS. Refusals are:
--   42501  a row that is not your own (the same code RLS gives, so 403 over REST);
--   23514  a broken rule, with a message naming it (400 over REST);
--   PGRST  a rate limit, in PostgREST's raise-an-HTTP-status form: HTTP 429, code TS429,
--          a Retry-After header.
-- Every timestamp a client could send (created_at, updated_at, last_seen) is replaced by the
-- server's now(), so freshness, cooldowns and rates only ever use the server's clock.

create schema if not exists game_private;
revoke all on schema game_private from public, anon, authenticated;

-- Whether the request comes from a signed-in player (and not from service_role or the owner).
create or replace function game_private.is_player() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(auth.role(), '') = 'authenticated'
$$;

-- Raises the error RLS would give for a row that is not the caller's own.
create or replace function game_private.require_own(wallet text, tbl text) returns void
language plpgsql stable set search_path = '' as $$
begin
  if wallet is distinct from public.wallet_address() then
    raise exception 'new row violates row-level security policy for table "%"', tbl using errcode = '42501';
  end if;
end $$;

-- Whether a pixel position stands on a spawn tile (|tileX| <= 2 and |tileY| <= 2).
create or replace function game_private.in_spawn(px integer, py integer) returns boolean
language sql immutable set search_path = '' as $$
  select floor(px / 32.0) between -2 and 2 and floor(py / 32.0) between -2 and 2
$$;

-- A player name: 1 to 20 characters, no leading or trailing white space (including the
-- Unicode spaces JavaScript's trim() removes) and no control characters.
create or replace function public.is_player_name(name text) returns boolean
language sql immutable set search_path = '' as $$
  select char_length(name) between 1 and 20
    and name !~ '^[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]'
    and name !~ '[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]$'
    and name !~ '[[:cntrl:]]'
$$;

-- A valid appearance object: only the seven known keys, #RRGGBB colours, known styles.
create or replace function public.is_valid_appearance(a jsonb) returns boolean
language sql immutable set search_path = '' as $$
  select jsonb_typeof(a) = 'object'
    and not exists (
      select 1 from jsonb_each(a) e
      where e.key not in ('skinColor', 'hairColor', 'hairStyle', 'shirtColor', 'shirtStyle', 'pantsColor', 'shoeColor')
        or jsonb_typeof(e.value) <> 'string'
        or (e.key like '%Color' and (e.value #>> '{}') !~ '^#[0-9A-Fa-f]{6}$')
        or (e.key = 'hairStyle' and (e.value #>> '{}') not in ('short', 'long', 'curly', 'bald'))
        or (e.key = 'shirtStyle' and (e.value #>> '{}') not in ('casual', 'tank', 'hoodie', 'formal')))
$$;

-- ---------------------------------------------------------------------------------------------
-- Names: every player_name (and a combat log's two names) is a valid player name. The schema's
-- own checks are replaced by the stricter function.
alter table public.game_chat_messages drop constraint if exists game_chat_messages_player_name_check,
  add constraint game_chat_messages_player_name check (public.is_player_name(player_name));
alter table public.game_blocks drop constraint if exists game_blocks_player_name_check,
  add constraint game_blocks_player_name check (public.is_player_name(player_name));
alter table public.game_voice_messages drop constraint if exists game_voice_messages_player_name_check,
  add constraint game_voice_messages_player_name check (public.is_player_name(player_name));
alter table public.game_players drop constraint if exists game_players_player_name_check,
  add constraint game_players_player_name check (public.is_player_name(player_name));
alter table public.game_player_stats drop constraint if exists game_player_stats_player_name_check,
  add constraint game_player_stats_player_name check (public.is_player_name(player_name));
alter table public.game_combat_logs drop constraint if exists game_combat_logs_attacker_name_check,
  drop constraint if exists game_combat_logs_victim_name_check,
  add constraint game_combat_logs_attacker_name check (public.is_player_name(attacker_name)),
  add constraint game_combat_logs_victim_name check (public.is_player_name(victim_name));

-- Blocks and voice clips lie inside the world: tiles -5000..4999 on both axes.
alter table public.game_blocks
  add constraint game_blocks_inside_world check (x between -5000 and 4999 and y between -5000 and 4999);
alter table public.game_voice_messages
  add constraint game_voice_messages_inside_world check (x between -5000 and 4999 and y between -5000 and 4999);

-- A voice clip is at most 1 MB of base64. "1 MB" is read as 1,000,000 characters, the smaller
-- of its two readings (the schema's own check), so it holds under either; the REST body limit
-- (2 MiB) leaves room for the JSON around it. The text must be base64: its alphabet, padded
-- to a multiple of 4.
alter table public.game_voice_messages
  add constraint game_voice_messages_base64 check (
    char_length(audio_data) % 4 = 0 and audio_data ~ '^[A-Za-z0-9+/]+={0,2}$');

-- ---------------------------------------------------------------------------------------------
-- Presence: health 0..max_health, max_health 100, level >= 1, inside the world (tiles
-- -5000..4999, so pixels -160000..159999), a valid appearance.
alter table public.game_players
  add constraint game_players_health_range check (health between 0 and max_health),
  add constraint game_players_max_health check (max_health = 100),
  add constraint game_players_level check (level >= 1),
  add constraint game_players_inside_world check (x between -160000 and 159999 and y between -160000 and 159999),
  add constraint game_players_valid_appearance check (appearance is null or public.is_valid_appearance(appearance));

-- The last position (and health) the server accepted for each wallet, with the walking slack
-- left. It is kept when the presence row is deleted, so leaving and rejoining elsewhere is no
-- teleport.
create table game_private.last_positions (
  player_id text primary key,
  x integer not null,
  y integer not null,
  health integer not null,
  slack double precision not null,
  at timestamptz not null
);

-- Server time for presence, and only one's own row.
create or replace function game_private.stamp_presence() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new.last_seen := now();
  new.updated_at := now();
  if game_private.is_player() then
    perform game_private.require_own(new.player_id, 'game_players');
  end if;
  return new;
end $$;

-- Movement must be plausible for 3 px per 16 ms step: 187.5 px/s (the client scales diagonal
-- steps to the same speed). Tolerance: 20 % on top of that speed (225 px/s), plus a slack of
-- at most 96 px (three tiles, half a second of walking) for rounding and for heartbeats that
-- reach the server closer together than they were sent. The slack is a budget, not a gift per
-- heartbeat: each move may use 225 px/s for the time since the last accepted one plus the
-- slack left, and what it does not use (at most 96 px) is left for the next. So over any span
-- of T seconds a player covers at most 96 + 225 T px, however often it sends heartbeats.
-- Checked after the row is written, so an upsert is judged by the row it really leaves.
-- Three moves into spawn skip the distance check and refill the slack:
--   * a wallet's first presence ever, which must be in spawn (every session starts at 0,0);
--   * rejoining: inserting the row after leaving (the client starts again at spawn);
--   * respawning: the player is defeated, i.e. the combat log holds at least as much damage
--     against them since their last accepted heartbeat as the health that heartbeat reported.
create or replace function game_private.check_movement() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  previous game_private.last_positions;
  budget double precision := 96;
  distance double precision;
  taken bigint;
begin
  if game_private.is_player() then
    select * into previous from game_private.last_positions where player_id = new.player_id;
    if not found then
      if not game_private.in_spawn(new.x, new.y) then
        raise exception 'a new player enters the world at spawn' using errcode = '23514';
      end if;
    else
      distance := sqrt(power(new.x - previous.x, 2) + power(new.y - previous.y, 2));
      budget := previous.slack + 225 * greatest(extract(epoch from now() - previous.at), 0) - distance;
      if budget < 0 then
        if not game_private.in_spawn(new.x, new.y) then
          raise exception 'implausible movement: % px in % s', round(distance), round(extract(epoch from now() - previous.at)::numeric, 2)
            using errcode = '23514', hint = 'Players move at most 3 px per 16 ms.';
        end if;
        if tg_op = 'UPDATE' then
          select coalesce(sum(l.damage), 0) into taken from public.game_combat_logs l
            where l.victim_id = new.player_id and l.created_at >= previous.at;
          if taken < previous.health then
            raise exception 'only a defeated player respawns at spawn' using errcode = '23514';
          end if;
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

create trigger game_players_stamp before insert or update on public.game_players
  for each row execute function game_private.stamp_presence();
create trigger game_players_movement after insert or update on public.game_players
  for each row execute function game_private.check_movement();

-- ---------------------------------------------------------------------------------------------
-- Combat: your own wallet attacks someone else, with a 25-damage sword, when both presence rows
-- are fresh (last_seen, stamped by the server, at most 30 s old), neither player stands on a
-- spawn tile, the two are within range, and the same attacker has not hit the same victim
-- within the last 1000 ms. The log's x and y are set to the victim's tile.
--
-- Range tolerance: 64 px plus the distance each player could have walked since their last
-- heartbeat (187.5 px/s), counted for at most 2 s per row, so at most 64 + 750 px. The client
-- sends a heartbeat right before each attack and whenever it stops walking, so the attacker's
-- row is fresh and the tolerance covers the victim's movement since its own heartbeat; the
-- 2 s cap keeps a stale row from granting a long reach.
alter table public.game_combat_logs
  add constraint game_combat_logs_damage check (damage = 25),
  add constraint game_combat_logs_weapon check (weapon_type = 'sword'),
  add constraint game_combat_logs_not_self check (attacker_id <> victim_id);
create index game_combat_logs_pair_idx on public.game_combat_logs (attacker_id, victim_id, created_at desc);
create index game_combat_logs_victim_idx on public.game_combat_logs (victim_id, created_at);

create or replace function game_private.check_attack() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  attacker public.game_players;
  victim public.game_players;
  age_s double precision;
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
  -- Concurrent hits by one attacker on one victim queue here, so the cooldown holds for them too.
  perform pg_advisory_xact_lock(hashtext('tessera.attack'), hashtext(new.attacker_id || '>' || new.victim_id));
  select * into attacker from public.game_players where player_id = new.attacker_id;
  if not found or attacker.last_seen < now() - interval '30 seconds' then
    raise exception 'attacker is not present' using errcode = '23514', hint = 'Send a presence heartbeat first.';
  end if;
  select * into victim from public.game_players where player_id = new.victim_id;
  if not found or victim.last_seen < now() - interval '30 seconds' then
    raise exception 'victim is not present' using errcode = '23514';
  end if;
  if game_private.in_spawn(attacker.x, attacker.y) or game_private.in_spawn(victim.x, victim.y) then
    raise exception 'no combat in the safe zone' using errcode = '23514';
  end if;
  age_s := least(extract(epoch from now() - attacker.last_seen), 2) + least(extract(epoch from now() - victim.last_seen), 2);
  distance := sqrt(power(attacker.x - victim.x, 2) + power(attacker.y - victim.y, 2));
  if distance > 64 + 187.5 * age_s then
    raise exception 'victim is out of range: % px', round(distance) using errcode = '23514', hint = 'Combat range is 64 px.';
  end if;
  if exists (
    select 1 from public.game_combat_logs l
    where l.attacker_id = new.attacker_id and l.victim_id = new.victim_id
      and l.created_at > now() - interval '1000 milliseconds'
  ) then
    raise exception 'attack cooldown: one hit per 1000 ms' using errcode = '23514';
  end if;
  new.x := floor(victim.x / 32.0);
  new.y := floor(victim.y / 32.0);
  return new;
end $$;

create trigger game_combat_logs_authority before insert on public.game_combat_logs
  for each row execute function game_private.check_attack();

-- Combat logs are the record of every hit: nobody rewrites or erases them.
drop policy if exists "own delete" on public.game_combat_logs;

-- Stats follow the combat log: damage_dealt never exceeds the damage the log records for the
-- player as attacker. Lowering one's own total harms nobody and is allowed.
create or replace function game_private.check_stats() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  logged bigint;
begin
  new.updated_at := now();
  new.created_at := case when tg_op = 'UPDATE' then old.created_at else now() end;
  if not game_private.is_player() then return new; end if;
  perform game_private.require_own(new.player_id, 'game_player_stats');
  select coalesce(sum(damage), 0) into logged from public.game_combat_logs where attacker_id = new.player_id;
  if new.damage_dealt > logged then
    raise exception 'damage_dealt % exceeds the % the combat log supports', new.damage_dealt, logged using errcode = '23514';
  end if;
  return new;
end $$;

create trigger game_player_stats_authority before insert or update on public.game_player_stats
  for each row execute function game_private.check_stats();

-- ---------------------------------------------------------------------------------------------
-- Rates: a token bucket per wallet and kind. Each written row takes a token; tokens refill at a
-- steady rate up to the burst size. An empty bucket refuses with HTTP 429, code TS429 and the
-- time until the next token: Retry-After (whole seconds) and, when the bucket was empty before
-- the request, X-Retry-After-Ms (milliseconds; the embedded server uses it to refuse a flood's
-- repeats without a transaction).
--   blocks (placing, changing and removing): burst 40, then 8 per second
--   chat: burst 5, then 1 every 2 seconds
--   voice: burst 3, then 1 every 5 seconds
-- A refused statement rolls back, so only rows actually written spend tokens.
create table game_private.rate_buckets (
  player_id text not null,
  kind text not null,
  tokens double precision not null,
  updated_at timestamptz not null,
  primary key (player_id, kind)
);

create or replace function game_private.take_token(bucket text, burst double precision, per_second double precision)
returns void
language plpgsql security definer set search_path = '' as $$
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
        'hint', 'Wait a moment and try again.')::text,
      detail = jsonb_build_object('status', 429, 'headers', headers)::text;
  end if;
  perform set_config(taken_here, '1', true);
  update game_private.rate_buckets b set tokens = available - 1
    where b.player_id = wallet and b.kind = bucket;
end $$;

create or replace function game_private.limit_rate() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if game_private.is_player() then
    perform game_private.take_token(tg_argv[0], tg_argv[1]::double precision, tg_argv[2]::double precision);
  end if;
  return coalesce(new, old);
end $$;

create trigger game_blocks_rate before insert or update or delete on public.game_blocks
  for each row execute function game_private.limit_rate('blocks', '40', '8');
create trigger game_chat_messages_rate before insert on public.game_chat_messages
  for each row execute function game_private.limit_rate('chat messages', '5', '0.5');
create trigger game_voice_messages_rate before insert on public.game_voice_messages
  for each row execute function game_private.limit_rate('voice clips', '3', '0.2');

-- Server time for every row's creation stamp; an update keeps the original one.
create or replace function game_private.stamp_created_at() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.created_at := case when tg_op = 'UPDATE' then old.created_at else now() end;
  return new;
end $$;

create trigger game_blocks_stamp before insert or update on public.game_blocks
  for each row execute function game_private.stamp_created_at();
create trigger game_chat_messages_stamp before insert on public.game_chat_messages
  for each row execute function game_private.stamp_created_at();
create trigger game_voice_messages_stamp before insert on public.game_voice_messages
  for each row execute function game_private.stamp_created_at();
