-- Tessera authority: the game rules that protect players, enforced by the database so that they
-- hold for every client, on the embedded server and on a hosted project alike.
--
-- Rules apply to signed-in players (role authenticated). service_role and the owner bypass them,
-- as they bypass RLS. Refusals are check violations (SQLSTATE 23514) with a message naming the
-- rule, or, for rate limits, PostgREST's raise-an-HTTP-status form (SQLSTATE PGRST), which gives
-- HTTP 429 with the error code TS429.

create schema if not exists game_private;
revoke all on schema game_private from public, anon, authenticated;

-- Constants of SPEC.md section 9, in pixels unless named otherwise.
create or replace function game_private.is_player() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(auth.role(), '') = 'authenticated'
$$;

-- Whether a pixel position stands on a spawn tile (|tileX| <= 2 and |tileY| <= 2).
create or replace function game_private.in_spawn(px integer, py integer) returns boolean
language sql immutable set search_path = '' as $$
  select floor(px / 32.0) between -2 and 2 and floor(py / 32.0) between -2 and 2
$$;

-- A valid appearance object: only the seven known keys, #RRGGBB colours, known styles.
create or replace function public.is_valid_appearance(a jsonb) returns boolean
language sql immutable set search_path = '' as $$
  select jsonb_typeof(a) = 'object'
    and not exists (
      select 1 from jsonb_each(a) e
      where e.key not in ('skinColor', 'hairColor', 'hairStyle', 'shirtColor', 'shirtStyle', 'pantsColor', 'shoeColor')
        or (e.key like '%Color' and (jsonb_typeof(e.value) <> 'string' or (e.value #>> '{}') !~ '^#[0-9A-Fa-f]{6}$'))
        or (e.key = 'hairStyle' and (e.value #>> '{}') not in ('short', 'long', 'curly', 'bald'))
        or (e.key = 'shirtStyle' and (e.value #>> '{}') not in ('casual', 'tank', 'hoodie', 'formal'))
        or (e.key like '%Style' and jsonb_typeof(e.value) <> 'string'))
$$;

-- ---------------------------------------------------------------------------------------------
-- Presence: health 0..max_health, max_health 100, level >= 1, inside the world (tiles
-- -5000..4999, so pixels -160000..159999), a valid appearance.
alter table public.game_players
  add constraint game_players_health_range check (health between 0 and max_health),
  add constraint game_players_max_health check (max_health = 100),
  add constraint game_players_level check (level >= 1),
  add constraint game_players_inside_world check (x between -160000 and 159999 and y between -160000 and 159999),
  add constraint game_players_valid_appearance check (appearance is null or public.is_valid_appearance(appearance));

-- The last position the server accepted for each wallet, kept even when the presence row is
-- deleted, so leaving and rejoining elsewhere is no teleport.
create table game_private.last_positions (
  player_id text primary key,
  x integer not null,
  y integer not null,
  at timestamptz not null
);

-- Movement between heartbeats must be plausible for 3 px per 16 ms step (187.5 px/s).
-- Tolerance: 20 % on top of that speed plus 96 px (three tiles) for rounding and network jitter.
-- A move into the spawn area is always allowed: it is where a defeated player respawns.
create or replace function game_private.check_presence() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  previous game_private.last_positions;
  elapsed_s double precision;
  allowed double precision;
begin
  -- The server's clock is the only one that counts for freshness.
  new.last_seen := now();
  new.updated_at := now();
  if not game_private.is_player() then return new; end if;
  select * into previous from game_private.last_positions where player_id = new.player_id;
  if found and not game_private.in_spawn(new.x, new.y) then
    elapsed_s := greatest(extract(epoch from now() - previous.at), 0);
    allowed := 187.5 * 1.2 * elapsed_s + 96;
    if sqrt(power(new.x - previous.x, 2) + power(new.y - previous.y, 2)) > allowed then
      raise exception 'implausible movement: % px in % s', round(sqrt(power(new.x - previous.x, 2) + power(new.y - previous.y, 2))), round(elapsed_s::numeric, 2)
        using errcode = '23514', hint = 'Players move at most 3 px per 16 ms.';
    end if;
  end if;
  insert into game_private.last_positions (player_id, x, y, at) values (new.player_id, new.x, new.y, now())
    on conflict (player_id) do update set x = excluded.x, y = excluded.y, at = excluded.at;
  return new;
end $$;

create trigger game_players_authority before insert or update on public.game_players
  for each row execute function game_private.check_presence();

-- ---------------------------------------------------------------------------------------------
-- Combat: your own wallet attacks someone else, with a 25-damage sword, when both presence rows
-- are fresh (30 s), neither player is on a spawn tile, the two are within range, and the same
-- attacker has not hit the same victim within the last 1000 ms.
--
-- Range: 64 px plus the distance both players could have walked since their last heartbeat
-- (187.5 px/s each, counted for at most 2 s per row, so at most 64 + 750 px when both rows are
-- 2 s old or older). The client sends a heartbeat right before each attack, so the attacker's
-- row is fresh and the tolerance covers the victim's movement since its own heartbeat.
alter table public.game_combat_logs
  add constraint game_combat_logs_damage check (damage = 25),
  add constraint game_combat_logs_weapon check (weapon_type = 'sword'),
  add constraint game_combat_logs_not_self check (attacker_id <> victim_id);
create index game_combat_logs_pair_idx on public.game_combat_logs (attacker_id, victim_id, created_at desc);

create or replace function game_private.check_attack() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  attacker public.game_players;
  victim public.game_players;
  age_s double precision;
  allowed double precision;
begin
  new.created_at := now();
  if not game_private.is_player() then return new; end if;
  if new.attacker_id is distinct from public.wallet_address() then
    raise exception 'the attacker must be your own wallet' using errcode = '42501';
  end if;
  if new.attacker_id = new.victim_id then
    raise exception 'nobody attacks themselves' using errcode = '23514';
  end if;
  if new.damage is distinct from 25 or new.weapon_type is distinct from 'sword' then
    raise exception 'a hit is a sword for 25 damage' using errcode = '23514';
  end if;
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
  allowed := 64 + 187.5 * age_s;
  if sqrt(power(attacker.x - victim.x, 2) + power(attacker.y - victim.y, 2)) > allowed then
    raise exception 'victim is out of range' using errcode = '23514', hint = 'Combat range is 64 px.';
  end if;
  if exists (
    select 1 from public.game_combat_logs l
    where l.attacker_id = new.attacker_id and l.victim_id = new.victim_id
      and l.created_at > now() - interval '1000 milliseconds'
  ) then
    raise exception 'attack cooldown: one hit per 1000 ms' using errcode = '23514';
  end if;
  return new;
end $$;

create trigger game_combat_logs_authority before insert on public.game_combat_logs
  for each row execute function game_private.check_attack();

-- Combat logs are the record of every hit: nobody rewrites or erases them.
drop policy if exists "own delete" on public.game_combat_logs;

-- Stats follow the combat log: damage_dealt never exceeds the damage the log records.
create or replace function game_private.check_stats() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  logged bigint;
begin
  new.updated_at := now();
  if not game_private.is_player() then return new; end if;
  select coalesce(sum(damage), 0) into logged from public.game_combat_logs where attacker_id = new.player_id;
  if new.damage_dealt > logged then
    raise exception 'damage_dealt % exceeds the % the combat log supports', new.damage_dealt, logged using errcode = '23514';
  end if;
  return new;
end $$;

create trigger game_player_stats_authority before insert or update on public.game_player_stats
  for each row execute function game_private.check_stats();

-- ---------------------------------------------------------------------------------------------
-- Rates: a token bucket per wallet and kind. Each write takes a token; tokens refill at a
-- steady rate up to the burst size. An empty bucket refuses with HTTP 429 (code TS429).
--   blocks (placing and removing): burst 40, 8 per second
--   chat: burst 5, 1 every 2 seconds
--   voice: burst 3, 1 every 5 seconds
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
  available double precision;
begin
  if wallet is null then return; end if;
  insert into game_private.rate_buckets as b (player_id, kind, tokens, updated_at)
  values (wallet, bucket, burst, now())
  on conflict (player_id, kind) do update
    set tokens = least(burst, b.tokens + per_second * greatest(extract(epoch from now() - b.updated_at), 0)),
        updated_at = now()
  returning tokens into available;
  if available < 1 then
    raise sqlstate 'PGRST' using
      message = json_build_object(
        'code', 'TS429',
        'message', format('Too many %s: slow down', bucket),
        'details', format('Limit: a burst of %s, then %s per second.', burst, per_second),
        'hint', 'Wait a moment and try again.')::text,
      detail = json_build_object('status', 429, 'headers', json_build_object('Retry-After', '1'))::text;
  end if;
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

create trigger game_blocks_rate before insert or delete on public.game_blocks
  for each row execute function game_private.limit_rate('blocks', '40', '8');
create trigger game_chat_messages_rate before insert on public.game_chat_messages
  for each row execute function game_private.limit_rate('chat messages', '5', '0.5');
create trigger game_voice_messages_rate before insert on public.game_voice_messages
  for each row execute function game_private.limit_rate('voice clips', '3', '0.2');

-- Server time for every row's creation stamp.
create or replace function game_private.stamp_created_at() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.created_at := now();
  return new;
end $$;

create trigger game_blocks_stamp before insert on public.game_blocks
  for each row execute function game_private.stamp_created_at();
create trigger game_chat_messages_stamp before insert on public.game_chat_messages
  for each row execute function game_private.stamp_created_at();
create trigger game_voice_messages_stamp before insert on public.game_voice_messages
  for each row execute function game_private.stamp_created_at();
