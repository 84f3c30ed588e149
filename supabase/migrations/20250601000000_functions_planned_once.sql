-- The helper functions that every write calls, planned once per connection.
--
-- PostgreSQL inlines a SQL function into the statement that calls it only when the function
-- is simple: no SET clause, not security definer, a single expression. Every other SQL function
-- is parsed and planned again in each statement that calls it. Ours all fix their
-- search_path, so a presence heartbeat parsed and planned about twenty function bodies: the
-- wallet lookup behind each policy and trigger, the name and appearance checks of the row's
-- constraints, the movement budget. That planning was over a third of the database's time per
-- heartbeat. PL/pgSQL keeps the plan of each statement for the life of the connection.
--
-- Each function keeps its signature, volatility, security and search_path, and returns exactly
-- what its SQL body returned (including null for a null argument). Grants and the constraints
-- and policies that call them are untouched.

create or replace function public.wallet_address() returns text
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select i.identity_data -> 'custom_claims' ->> 'address'
          from auth.identities i
          where i.user_id = auth.uid() and i.provider = 'web3'
          order by i.created_at
          limit 1);
end $$;

create or replace function game_private.is_player() returns boolean
language plpgsql stable set search_path = '' as $$
begin
  return coalesce(auth.role(), '') = 'authenticated';
end $$;

create or replace function game_private.in_spawn(px integer, py integer) returns boolean
language plpgsql immutable set search_path = '' as $$
begin
  return floor(px / 32.0) between -2 and 2 and floor(py / 32.0) between -2 and 2;
end $$;

create or replace function public.player_name_problem(name text) returns text
language plpgsql immutable set search_path = '' as $$
begin
  return case
    when name ~ '[\u0001-\u001f\u007f-\u009f]' then 'Names cannot contain control characters.'
    when name ~ '[\u200e\u200f\u202a-\u202e\u2066-\u2069]' then 'Names cannot contain direction controls.'
    when name ~ '[\u200b-\u200d\u2060\ufeff]' then 'Names cannot contain invisible characters.'
  end;
end $$;

create or replace function public.chat_message_problem(message text) returns text
language plpgsql immutable set search_path = '' as $$
begin
  return case
    when message ~ '[\u0001-\u001f\u007f-\u009f]' then 'Messages cannot contain control characters.'
    when message ~ '[\u200e\u200f\u202a-\u202e\u2066-\u2069]' then 'Messages cannot contain direction controls.'
  end;
end $$;

create or replace function public.is_player_name(name text) returns boolean
language plpgsql immutable set search_path = '' as $$
begin
  return char_length(name) between 1 and 20
    and name !~ '^[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]'
    and name !~ '[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]$'
    and public.player_name_problem(name) is null
    and name is nfkc normalized;
end $$;

create or replace function public.is_valid_appearance(a jsonb) returns boolean
language plpgsql immutable set search_path = '' as $$
begin
  return jsonb_typeof(a) = 'object'
    and not exists (
      select 1 from jsonb_each(a) e
      where e.key not in ('skinColor', 'hairColor', 'hairStyle', 'shirtColor', 'shirtStyle', 'pantsColor', 'shoeColor')
        or jsonb_typeof(e.value) <> 'string'
        or (e.key like '%Color' and (e.value #>> '{}') !~ '^#[0-9A-Fa-f]{6}$')
        or (e.key = 'hairStyle' and (e.value #>> '{}') not in ('short', 'long', 'curly', 'bald'))
        or (e.key = 'shirtStyle' and (e.value #>> '{}') not in ('casual', 'tank', 'hoodie', 'formal')));
end $$;

create or replace function public.player_name_key(name text) returns text
language plpgsql immutable set search_path = '' as $$
begin
  return lower(normalize(name, nfkc));
end $$;

create or replace function game_private.held_by_other(wallet text, name text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (
    select 1 from public.game_held_names h
    where h.name_key = public.player_name_key(name) and h.player_id <> wallet
      and h.held_at > now() - interval '30 days');
end $$;

create or replace function public.earned_level(blocks_placed integer, hits_landed integer) returns integer
language plpgsql immutable set search_path = '' as $$
begin
  return 1 + floor(sqrt((blocks_placed + 5 * hits_landed) / 10.0))::integer;
end $$;

create or replace function game_private.movement_budget(previous game_private.last_positions, x double precision, y double precision)
returns double precision
language plpgsql stable set search_path = '' as $$
begin
  return previous.slack + 225 * greatest(extract(epoch from now() - previous.at), 0)
    - sqrt(power(x - previous.x, 2) + power(y - previous.y, 2));
end $$;

create or replace function game_private.removing_orphans() returns boolean
language plpgsql stable set search_path = '' as $$
begin
  return coalesce(current_setting('tessera.removing_orphans', true), '') = 'on';
end $$;

create or replace function game_private.elevation_at(tile_x integer, tile_y integer)
returns double precision
language plpgsql immutable strict parallel safe set search_path = '' as $$
begin
  return game_private.elevation_noise(tile_x::float8 / 160::float8, tile_y::float8 / 160::float8) * 0.75::float8
       + game_private.elevation_noise(tile_x::float8 / 40::float8, tile_y::float8 / 40::float8) * 0.25::float8;
end $$;

create or replace function game_private.is_water(tile_x integer, tile_y integer) returns boolean
language plpgsql immutable strict parallel safe set search_path = '' as $$
begin
  return not (abs(tile_x) <= 2 and abs(tile_y) <= 2)
    and game_private.elevation_at(tile_x, tile_y) < -0.38::float8;
end $$;
