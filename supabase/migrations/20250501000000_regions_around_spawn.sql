-- Regions are centred on spawn (net/regions.ts): region (0, 0) is the 1024 px square from -512 to
-- 511 on both axes, so a crowd around spawn lies in one region instead of across the corner of
-- four. A generated column's expression is replaced by adding it again; its index goes with it.
alter table public.game_players drop column region;

alter table public.game_players
  add column region text generated always as (
    floor((x + 512) / 1024.0)::integer::text || ':' || floor((y + 512) / 1024.0)::integer::text
  ) stored;

create index game_players_region_seen on public.game_players (region, last_seen);
