-- A presence heartbeat (every 5 s per player) of a wallet that already holds the name it writes
-- need not take the name lock nor write its hold again: a wallet holds one name at a time, so
-- there is no older name to free, and no other wallet can hold the same key. The hold is
-- refreshed at most once an hour, which a 30-day hold (20250201000200_held_names.sql) does not
-- notice. Every other presence write takes the full path as before.
create or replace function game_private.hold_name() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  key text := public.player_name_key(new.player_name);
begin
  if not game_private.is_player() then return new; end if;
  if exists (select 1 from public.game_held_names h
             where h.name_key = key and h.player_id = new.player_id and h.held_at > now() - interval '1 hour') then
    return new;
  end if;
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
