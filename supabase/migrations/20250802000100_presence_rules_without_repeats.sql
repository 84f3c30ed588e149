-- Two rules of every presence heartbeat that repeated work (bench/README.md, the heartbeat case).
--
-- * public.is_valid_appearance() is the CHECK of game_players.appearance, and an upsert checks
--   both the row proposed and the row stored: twice per heartbeat. It walked the object's keys
--   with a subquery, which PL/pgSQL runs through the executor; it is now one expression over the
--   seven keys a look may have, evaluated in place, with the same answer for every value: an
--   object of only those keys, each a string, colours as #rrggbb, styles from their lists.
-- * The player's name was cleaned on every update of game_players, though a stored name was
--   cleaned when it was written: on an update it is now cleaned only when it changes
--   (game_players_clean_names still cleans every insert; game_players_clean_names_changed sorts
--   right after it, so the name is clean before hold_name reads it).

create or replace function public.is_valid_appearance(a jsonb) returns boolean
language plpgsql immutable set search_path = '' as $$
begin
  return jsonb_typeof(a) = 'object'
    and a - array['skinColor', 'hairColor', 'hairStyle', 'shirtColor', 'shirtStyle', 'pantsColor', 'shoeColor'] = '{}'::jsonb
    -- Each key present holds its form, which only a string's text can match (a number, array,
    -- object or boolean never reads as '#rrggbb' or a style's name); a key absent passes, and a
    -- JSON null, whose text is SQL null, falls to `not a ? key`: false.
    and coalesce(a ->> 'skinColor' ~ '^#[0-9A-Fa-f]{6}$', not a ? 'skinColor')
    and coalesce(a ->> 'hairColor' ~ '^#[0-9A-Fa-f]{6}$', not a ? 'hairColor')
    and coalesce(a ->> 'shirtColor' ~ '^#[0-9A-Fa-f]{6}$', not a ? 'shirtColor')
    and coalesce(a ->> 'pantsColor' ~ '^#[0-9A-Fa-f]{6}$', not a ? 'pantsColor')
    and coalesce(a ->> 'shoeColor' ~ '^#[0-9A-Fa-f]{6}$', not a ? 'shoeColor')
    and coalesce(a ->> 'hairStyle' in ('short', 'long', 'curly', 'bald'), not a ? 'hairStyle')
    and coalesce(a ->> 'shirtStyle' in ('casual', 'tank', 'hoodie', 'formal'), not a ? 'shirtStyle');
end $$;

drop trigger game_players_clean_names on public.game_players;
create trigger game_players_clean_names before insert on public.game_players
  for each row execute function game_private.clean_names('player_name');
create trigger game_players_clean_names_changed before update on public.game_players
  for each row when (new.player_name is distinct from old.player_name) execute function game_private.clean_names('player_name');
