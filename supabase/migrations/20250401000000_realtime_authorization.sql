-- Realtime Authorization for the region channels (docs/protocols.md §3).
--
-- Private channels are authorised by the row-level policies on realtime.messages, as Supabase
-- Realtime Authorization defines them: on join the server checks whether the caller may SELECT a
-- row of the channel's topic (read), on send whether it may INSERT one (write); realtime.topic()
-- names the topic being checked. A hosted project already has the schema, the table and the
-- function, so each is created only if missing; the policies are the game's own.
--
-- Only a signed-in player whose presence row is fresh (last_seen within 30 s, the freshness
-- game_private.fresh_presence asks for) may listen or broadcast on `region:*`. The anon key gets
-- nothing: no policy names it.

create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;

-- Hosted's columns (the hosted table is partitioned by inserted_at; rows here are only ever
-- written inside a check that is rolled back).
create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default now(),
  inserted_at timestamp without time zone not null default now(),
  id uuid not null default gen_random_uuid(),
  binary_payload bytea,
  primary key (id, inserted_at)
);
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

do $$
begin
  if to_regprocedure('realtime.topic()') is null then
    create function realtime.topic() returns text
    language sql stable
    as $fn$ select nullif(current_setting('realtime.topic', true), '')::text $fn$;
    grant execute on function realtime.topic() to anon, authenticated, service_role;
  end if;
end $$;

-- The same test for reading and writing: a broadcast on a region topic by a player in the world.
do $$
begin
  if not exists (select 1 from pg_policies where schemaname = 'realtime' and tablename = 'messages'
                 and policyname = 'players in the world hear their regions') then
    create policy "players in the world hear their regions" on realtime.messages
      for select to authenticated
      using (
        extension = 'broadcast'
        and (select realtime.topic()) like 'region:%'
        and exists (
          select 1 from public.game_players p
          where p.player_id = (select public.wallet_address())
            and p.last_seen >= now() - interval '30 seconds'));
  end if;
  if not exists (select 1 from pg_policies where schemaname = 'realtime' and tablename = 'messages'
                 and policyname = 'players in the world speak in their regions') then
    create policy "players in the world speak in their regions" on realtime.messages
      for insert to authenticated
      with check (
        extension = 'broadcast'
        and (select realtime.topic()) like 'region:%'
        and exists (
          select 1 from public.game_players p
          where p.player_id = (select public.wallet_address())
            and p.last_seen >= now() - interval '30 seconds'));
  end if;
end $$;
