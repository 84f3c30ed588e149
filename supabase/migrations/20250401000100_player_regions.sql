-- Each presence row names its region: the 1024 px square (32 tiles of 32 px, net/regions.ts) its
-- position falls in, as 'rx:ry'. A client follows the presence rows of the 3x3 regions around it
-- with one postgres_changes filter (region=in.(...)) and loads them with the same list, so each
-- heartbeat reaches the players near it instead of every player in the world.
alter table public.game_players
  add column region text generated always as (
    floor(x / 1024.0)::integer::text || ':' || floor(y / 1024.0)::integer::text
  ) stored;

create index game_players_region_seen on public.game_players (region, last_seen);
