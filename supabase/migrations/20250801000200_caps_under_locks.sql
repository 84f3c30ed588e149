-- Every cap and budget is judged under a lock, so writes sent at once are judged one after another.
--
-- A cap counted by a row trigger holds only if the rows it counts cannot change between the
-- count and the insert. Mutes were counted without a lock: four mutes sent at once by a wallet
-- at 499 each counted 499, and the wallet went past 500. The caps and budgets of the schema, and
-- what makes each one hold for concurrent writes:
--
--   mutes, at most 500 a wallet         the wallet's mute lock (below)
--   trusted players, at most 50 a claim the claim's row, locked (check_claim_member)
--   claim tiles, the wallet's budget    the claims lock, one for every wallet (check_claim)
--   claims apart                        the exclusion constraint game_claims_apart
--   reports, at most 5 an hour          the reporter's report lock (fill_report)
--   one open report per player          the unique index game_reports_one_open_idx
--   one name per wallet                 the unique key on game_held_names.player_id, and the
--                                       wallet's name lock (below) so that names sent at once
--                                       replace each other instead of failing on that key
--   one wallet per name                 the name's lock (hold_name)
--   rate buckets                        the bucket's row, updated in place (take_token)
--   movement budget                     the wallet's last_positions row, locked (below, and
--                                       check_attack)
--   health, one hit per 1000 ms         the victim's earned row, locked (check_attack, count_hit)
--   one hit per attacker and victim     the pair's attack lock (check_attack)
--
-- A row trigger sees the rows its own statement inserted before, so one statement of many rows
-- that crosses a cap is refused whole.

create or replace function game_private.check_mute() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new.created_at := now();
  -- One wallet's mutes queue here, so the count holds for concurrent ones too.
  perform pg_advisory_xact_lock(hashtext('tessera.mute'), hashtext(new.player_id));
  if (select count(*) from public.game_mutes m where m.player_id = new.player_id) >= 500 then
    raise exception 'a player mutes at most 500 wallets' using errcode = '23514';
  end if;
  return new;
end $$;

create or replace function game_private.hold_name() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  key text := public.player_name_key(new.player_name);
begin
  if not game_private.is_player() then return new; end if;
  -- One wallet's presence writes queue here (an upsert's insert half is not serialised by the
  -- row), so names it sends at once replace each other in turn.
  perform pg_advisory_xact_lock(hashtext('tessera.name_holder'), hashtext(new.player_id));
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

create or replace function game_private.check_movement() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  previous game_private.last_positions;
  budget double precision := game_private.movement_slack_cap();
begin
  if game_private.is_player() then
    -- The budget is spent under the row's lock, as a hit spends it (check_attack).
    select * into previous from game_private.last_positions where player_id = new.player_id for update;
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
