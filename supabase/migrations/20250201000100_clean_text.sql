-- Clean text: what a name or a chat message may contain. The messages are the ones the client
-- shows before sending (components/text.ts), so a refusal reads the same from either side.
--
-- Names refuse three classes of character and are stored in Unicode NFKC form:
--   control characters   U+0000-001F, U+007F-009F
--   direction controls   U+200E-200F, U+202A-202E, U+2066-2069
--   invisible characters U+200B-200D, U+2060, U+FEFF
-- Chat messages refuse control characters and direction controls; invisible characters are
-- removed before the message is stored (a message left empty is refused as empty).

-- The class of the first forbidden character in a name, as the client words it; null when clean.
create or replace function public.player_name_problem(name text) returns text
language sql immutable set search_path = '' as $$
  select case
    when name ~ '[\u0001-\u001f\u007f-\u009f]' then 'Names cannot contain control characters.'
    when name ~ '[\u200e\u200f\u202a-\u202e\u2066-\u2069]' then 'Names cannot contain direction controls.'
    when name ~ '[\u200b-\u200d\u2060\ufeff]' then 'Names cannot contain invisible characters.'
  end
$$;
revoke all on function public.player_name_problem(text) from public;
grant execute on function public.player_name_problem(text) to anon, authenticated, service_role;

-- The class of the first forbidden character in a chat message; null when clean.
create or replace function public.chat_message_problem(message text) returns text
language sql immutable set search_path = '' as $$
  select case
    when message ~ '[\u0001-\u001f\u007f-\u009f]' then 'Messages cannot contain control characters.'
    when message ~ '[\u200e\u200f\u202a-\u202e\u2066-\u2069]' then 'Messages cannot contain direction controls.'
  end
$$;
revoke all on function public.chat_message_problem(text) from public;
grant execute on function public.chat_message_problem(text) to anon, authenticated, service_role;

-- A player name: 1 to 20 characters, no leading or trailing white space, none of the three
-- forbidden classes, and already in NFKC form (the triggers below normalise before checking).
-- Replaces the definition of 20250101000100_authority.sql, which the check constraints call.
create or replace function public.is_player_name(name text) returns boolean
language sql immutable set search_path = '' as $$
  select char_length(name) between 1 and 20
    and name !~ '^[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]'
    and name !~ '[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]$'
    and public.player_name_problem(name) is null
    and name is nfkc normalized
$$;

-- Names are stored NFKC-normalised, and a name with a forbidden character is refused with the
-- class in the message. tg_argv names the name columns of the table.
create or replace function game_private.clean_names() returns trigger
language plpgsql set search_path = '' as $$
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
      raise exception '%', problem using errcode = '23514';
    end if;
    row_json := jsonb_set(row_json, array[col], to_jsonb(normalize(name, nfkc)));
  end loop;
  new := jsonb_populate_record(new, row_json);
  return new;
end $$;

create trigger game_players_clean_names before insert or update on public.game_players
  for each row execute function game_private.clean_names('player_name');
create trigger game_chat_messages_clean_names before insert on public.game_chat_messages
  for each row execute function game_private.clean_names('player_name');
create trigger game_blocks_clean_names before insert or update on public.game_blocks
  for each row execute function game_private.clean_names('player_name');
create trigger game_voice_messages_clean_names before insert on public.game_voice_messages
  for each row execute function game_private.clean_names('player_name');
create trigger game_player_stats_clean_names before insert or update on public.game_player_stats
  for each row execute function game_private.clean_names('player_name');
create trigger game_combat_logs_clean_names before insert on public.game_combat_logs
  for each row execute function game_private.clean_names('attacker_name', 'victim_name');

-- Chat: refuse control characters and direction controls, strip invisible characters.
create or replace function game_private.clean_chat() returns trigger
language plpgsql set search_path = '' as $$
declare
  problem text := public.chat_message_problem(new.message);
begin
  if problem is not null then
    raise exception '%', problem using errcode = '23514';
  end if;
  new.message := regexp_replace(new.message, '[\u200b-\u200d\u2060\ufeff]', '', 'g');
  return new;
end $$;

create trigger game_chat_messages_clean_text before insert on public.game_chat_messages
  for each row execute function game_private.clean_chat();
