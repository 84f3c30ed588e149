-- A name is one player's. A wallet holds the name it last wrote in its presence row; while it is
-- held no other wallet may write it anywhere (presence, chat, blocks, voice, combat, stats).
-- Names are compared by their key: NFKC, then lower case, so 'Alice' and 'ＡＬＩＣＥ' are one
-- name. A wallet holds one name at a time (taking a new one frees the old), and a name whose
-- holder has written no presence for 30 days (HELD_NAME_DAYS in components/text.ts) is free.
-- Refusals are 23505 (409 over REST), with a message naming the name.
--
-- The table is readable by signed-in players, so the landing can say that a name is taken
-- before the player enters the world; only the triggers below write it.

-- The key two names collide on.
create or replace function public.player_name_key(name text) returns text
language sql immutable set search_path = '' as $$
  select lower(normalize(name, nfkc))
$$;
revoke all on function public.player_name_key(text) from public;
grant execute on function public.player_name_key(text) to anon, authenticated, service_role;

create table public.game_held_names (
  name_key text primary key,
  player_id text not null unique,
  player_name text not null,
  held_at timestamptz not null default now()
);
alter table public.game_held_names enable row level security;
create policy "signed-in read" on public.game_held_names for select to authenticated using (true);
revoke all on public.game_held_names from public, anon, authenticated;
grant select on public.game_held_names to authenticated;
grant all on public.game_held_names to service_role;

-- Whether `name` is held by a wallet other than `wallet` (holders absent for 30 days hold nothing).
create or replace function game_private.held_by_other(wallet text, name text) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.game_held_names h
    where h.name_key = public.player_name_key(name) and h.player_id <> wallet
      and h.held_at > now() - interval '30 days')
$$;

-- Refuses a name another wallet holds.
create or replace function game_private.require_name_free(wallet text, name text) returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  if game_private.held_by_other(wallet, name) then
    raise exception 'the name % is taken by another player', name using errcode = '23505',
      hint = 'Pick another name.';
  end if;
end $$;

-- A presence write holds its name for its wallet (and frees the wallet's previous name).
create or replace function game_private.hold_name() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  key text := public.player_name_key(new.player_name);
begin
  if not game_private.is_player() then return new; end if;
  -- Two wallets claiming one name at once queue here; the second then sees the first's claim.
  perform pg_advisory_xact_lock(hashtext('tessera.name'), hashtext(key));
  perform game_private.require_name_free(new.player_id, new.player_name);
  delete from public.game_held_names where player_id = new.player_id and name_key <> key;
  insert into public.game_held_names (name_key, player_id, player_name, held_at)
    values (key, new.player_id, new.player_name, now())
    on conflict (name_key) do update
      set player_id = excluded.player_id, player_name = excluded.player_name, held_at = excluded.held_at;
  return new;
end $$;

-- Every other name a player writes must not be held by someone else. tg_argv names the name
-- column and the wallet column (a row naming another wallet is refused by RLS as not one's own).
create or replace function game_private.check_name_free() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  row_json jsonb := to_jsonb(new);
begin
  if game_private.is_player() then
    perform game_private.require_name_free(row_json ->> tg_argv[1], row_json ->> tg_argv[0]);
  end if;
  return new;
end $$;

create trigger game_players_hold_name before insert or update on public.game_players
  for each row execute function game_private.hold_name();
create trigger game_chat_messages_name_free before insert on public.game_chat_messages
  for each row execute function game_private.check_name_free('player_name', 'player_id');
create trigger game_blocks_name_free before insert or update on public.game_blocks
  for each row execute function game_private.check_name_free('player_name', 'player_id');
create trigger game_voice_messages_name_free before insert on public.game_voice_messages
  for each row execute function game_private.check_name_free('player_name', 'player_id');
create trigger game_player_stats_name_free before insert or update on public.game_player_stats
  for each row execute function game_private.check_name_free('player_name', 'player_id');
create trigger game_combat_logs_name_free before insert on public.game_combat_logs
  for each row execute function game_private.check_name_free('attacker_name', 'attacker_id');
