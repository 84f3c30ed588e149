-- Tessera game schema: the six tables of docs/game-rules.md §3, their validation rules as
-- constraints, row-level security keyed by the signed-in wallet, and the realtime publication.
-- Applies to the embedded server and, unchanged, to a hosted Supabase project.

-- The signed-in wallet, read from auth.identities (server-written), never from user_metadata
-- (user-writable).
create or replace function public.wallet_address() returns text
language sql stable security definer set search_path = ''
as $$
  select i.identity_data -> 'custom_claims' ->> 'address'
  from auth.identities i
  where i.user_id = auth.uid() and i.provider = 'web3'
  order by i.created_at
  limit 1
$$;
revoke all on function public.wallet_address() from public;
grant execute on function public.wallet_address() to anon, authenticated, service_role;

create table public.game_chat_messages (
  id uuid primary key default gen_random_uuid(),
  player_id text not null,
  player_name text not null check (player_name ~ '^\S(.*\S)?$' and char_length(player_name) <= 20),
  message text not null check (message ~ '^\S(.*\S)?$' and char_length(message) <= 200),
  created_at timestamptz not null default now()
);
create index game_chat_messages_created_at_idx on public.game_chat_messages (created_at);

create table public.game_blocks (
  x integer not null,
  y integer not null,
  block_type text not null check (block_type in (
    'stone', 'wood', 'brick', 'dirt', 'gold', 'iron', 'diamond', 'emerald',
    'coal', 'obsidian', 'glass', 'sand', 'cobblestone', 'marble', 'copper', 'redstone')),
  player_id text not null,
  player_name text not null check (player_name ~ '^\S(.*\S)?$' and char_length(player_name) <= 20),
  created_at timestamptz not null default now(),
  primary key (x, y),
  constraint game_blocks_outside_spawn check (abs(x) > 2 or abs(y) > 2)
);
create index game_blocks_created_at_idx on public.game_blocks (created_at);

create table public.game_voice_messages (
  id uuid primary key default gen_random_uuid(),
  player_id text not null,
  player_name text not null check (player_name ~ '^\S(.*\S)?$' and char_length(player_name) <= 20),
  audio_data text not null check (char_length(audio_data) between 1 and 1000000),
  x integer not null,
  y integer not null,
  created_at timestamptz not null default now()
);

create table public.game_players (
  player_id text primary key,
  player_name text not null check (player_name ~ '^\S(.*\S)?$' and char_length(player_name) <= 20),
  x integer not null default 0,
  y integer not null default 0,
  health integer not null default 100,
  max_health integer not null default 100,
  level integer not null default 1,
  appearance jsonb,
  is_swinging boolean not null default false,
  last_seen timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table public.game_combat_logs (
  id uuid primary key default gen_random_uuid(),
  attacker_id text not null,
  attacker_name text not null check (attacker_name ~ '^\S(.*\S)?$' and char_length(attacker_name) <= 20),
  victim_id text not null,
  victim_name text not null check (victim_name ~ '^\S(.*\S)?$' and char_length(victim_name) <= 20),
  damage integer not null default 25 check (damage > 0),
  weapon_type text not null default 'sword',
  x integer not null,
  y integer not null,
  created_at timestamptz not null default now()
);

create table public.game_player_stats (
  player_id text primary key,
  player_name text not null check (player_name ~ '^\S(.*\S)?$' and char_length(player_name) <= 20),
  damage_dealt integer not null default 0 check (damage_dealt >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- DELETE events must carry the old row: removed blocks by (x, y), departed players by player_id.
alter table public.game_blocks replica identity full;
alter table public.game_players replica identity full;

alter table public.game_chat_messages enable row level security;
alter table public.game_blocks enable row level security;
alter table public.game_voice_messages enable row level security;
alter table public.game_players enable row level security;
alter table public.game_combat_logs enable row level security;
alter table public.game_player_stats enable row level security;

-- Any signed-in player reads everything.
create policy "signed-in read" on public.game_chat_messages for select to authenticated using (true);
create policy "signed-in read" on public.game_blocks for select to authenticated using (true);
create policy "signed-in read" on public.game_voice_messages for select to authenticated using (true);
create policy "signed-in read" on public.game_players for select to authenticated using (true);
create policy "signed-in read" on public.game_combat_logs for select to authenticated using (true);
create policy "signed-in read" on public.game_player_stats for select to authenticated using (true);

-- A player writes only their own rows. (select ...) makes Postgres evaluate the function once per statement.
create policy "own insert" on public.game_chat_messages for insert to authenticated
  with check (player_id = (select public.wallet_address()));
create policy "own delete" on public.game_chat_messages for delete to authenticated
  using (player_id = (select public.wallet_address()));

create policy "own insert" on public.game_blocks for insert to authenticated
  with check (player_id = (select public.wallet_address()));
create policy "own update" on public.game_blocks for update to authenticated
  using (player_id = (select public.wallet_address()))
  with check (player_id = (select public.wallet_address()));
-- The world is shared: anyone signed in may remove a block, except inside spawn.
create policy "shared delete outside spawn" on public.game_blocks for delete to authenticated
  using (abs(x) > 2 or abs(y) > 2);

create policy "own insert" on public.game_voice_messages for insert to authenticated
  with check (player_id = (select public.wallet_address()));
create policy "own delete" on public.game_voice_messages for delete to authenticated
  using (player_id = (select public.wallet_address()));

create policy "own insert" on public.game_players for insert to authenticated
  with check (player_id = (select public.wallet_address()));
create policy "own update" on public.game_players for update to authenticated
  using (player_id = (select public.wallet_address()))
  with check (player_id = (select public.wallet_address()));
create policy "own delete" on public.game_players for delete to authenticated
  using (player_id = (select public.wallet_address()));

create policy "own insert" on public.game_combat_logs for insert to authenticated
  with check (attacker_id = (select public.wallet_address()));
create policy "own delete" on public.game_combat_logs for delete to authenticated
  using (attacker_id = (select public.wallet_address()));

create policy "own insert" on public.game_player_stats for insert to authenticated
  with check (player_id = (select public.wallet_address()));
create policy "own update" on public.game_player_stats for update to authenticated
  using (player_id = (select public.wallet_address()))
  with check (player_id = (select public.wallet_address()));
create policy "own delete" on public.game_player_stats for delete to authenticated
  using (player_id = (select public.wallet_address()));

-- anon writes nothing and reads nothing.
revoke insert, update, delete, truncate on public.game_chat_messages, public.game_blocks,
  public.game_voice_messages, public.game_players, public.game_combat_logs, public.game_player_stats
  from anon;

alter publication supabase_realtime add table public.game_chat_messages, public.game_blocks,
  public.game_voice_messages, public.game_players, public.game_combat_logs, public.game_player_stats;
