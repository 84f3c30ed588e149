-- Tessera moderation (docs/moderation.md): players mute and report, operators ban, inspect tiles
-- and roll back a wallet's edits. Everything an operator may do is decided here, so it holds for
-- every client, on the embedded server and on a hosted project.
--
-- * game_private.operators: the operator wallets. The embedded server writes OPERATOR_WALLETS
--   there at start (source 'env'); on a hosted project an operator is added with
--     insert into game_private.operators (player_id) values ('<wallet address>');
-- * public.game_mutes: a player's own mutes, read and written only by that player. Voice clips
--   of a muted wallet are not readable by the muter at all (REST or Realtime).
-- * public.game_reports: reports with server-filled context; 5 an hour per reporter, one open
--   report per reporter and reported wallet; a player reads only its own.
-- * public.game_bans: scope play (no writes; the embedded server also refuses sign-in and ends
--   sessions) or chat (no chat or voice), with a reason and an optional end. Operators write it.
-- * tile_history, rollback_edits, undo_rollback, resolve_report: operators only.
-- * public.game_ops_log: every operator action, append-only, read by operators.
--
-- Refusals: 42501 for what the caller may not do (403 over REST), 23514 for a broken rule,
-- 23505 for a second open report, PGRST/TS429 (HTTP 429) for the report limit.

-- ---------------------------------------------------------------------------------------------
-- Operators.
create table game_private.operators (
  player_id text primary key check (char_length(player_id) between 1 and 64),
  -- 'env': written from OPERATOR_WALLETS at server start (and removed when no longer listed);
  -- 'sql': added by hand, kept.
  source text not null default 'sql' check (source in ('env', 'sql')),
  added_at timestamptz not null default now()
);

-- Whether the signed-in wallet is an operator.
create or replace function public.is_operator() returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (select 1 from game_private.operators o where o.player_id = public.wallet_address());
end $$;
revoke all on function public.is_operator() from public;
grant execute on function public.is_operator() to authenticated, service_role;

-- The acting operator's wallet ('service_role' for the secret key), or 42501 for anyone else.
create or replace function game_private.require_operator(action text) returns text
language plpgsql stable security definer set search_path = '' as $$
declare
  wallet text;
begin
  if coalesce(auth.role(), '') = 'service_role' then return 'service_role'; end if;
  wallet := public.wallet_address();
  if wallet is null or not exists (select 1 from game_private.operators o where o.player_id = wallet) then
    raise exception 'only operators may %', action using errcode = '42501';
  end if;
  return wallet;
end $$;
revoke all on function game_private.require_operator(text) from public;

-- ---------------------------------------------------------------------------------------------
-- The operators' log: append-only, even for service_role and the owner.
create table public.game_ops_log (
  id bigint generated always as identity primary key,
  operator_id text not null,
  action text not null,
  target text,
  details jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index game_ops_log_created_at_idx on public.game_ops_log (created_at);
alter table public.game_ops_log enable row level security;
create policy "operators read" on public.game_ops_log for select to authenticated using ((select public.is_operator()));
revoke all on public.game_ops_log from public, anon, authenticated, service_role;
grant select on public.game_ops_log to authenticated, service_role;

create or replace function game_private.refuse_log_change() returns trigger
language plpgsql set search_path = '' as $$
begin
  raise exception 'the operators'' log is append-only' using errcode = '42501';
end $$;
create trigger game_ops_log_append_only before update or delete or truncate on public.game_ops_log
  for each statement execute function game_private.refuse_log_change();

create or replace function game_private.log_op(operator text, action text, target text, details jsonb) returns void
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.game_ops_log (operator_id, action, target, details) values (operator, action, target, details);
end $$;
revoke all on function game_private.log_op(text, text, text, jsonb) from public;

-- ---------------------------------------------------------------------------------------------
-- Bans.
create table public.game_bans (
  player_id text not null check (char_length(player_id) between 1 and 64),
  scope text not null check (scope in ('play', 'chat')),
  reason text not null check (char_length(reason) between 1 and 200 and reason !~ '[[:cntrl:]]'),
  until timestamptz,
  by text,
  created_at timestamptz not null default now(),
  primary key (player_id, scope)
);
create index game_bans_created_at_idx on public.game_bans (created_at);
alter table public.game_bans enable row level security;
-- Operators read every ban; a wallet reads its own (so the game can say why it is muted).
create policy "operators and the banned read" on public.game_bans for select to authenticated
  using (player_id = (select public.wallet_address()) or (select public.is_operator()));
create policy "operators ban" on public.game_bans for insert to authenticated with check ((select public.is_operator()));
create policy "operators change bans" on public.game_bans for update to authenticated
  using ((select public.is_operator())) with check ((select public.is_operator()));
create policy "operators unban" on public.game_bans for delete to authenticated using ((select public.is_operator()));
revoke all on public.game_bans from public, anon, authenticated, service_role;
grant select, insert, update, delete on public.game_bans to authenticated, service_role;

-- The active ban of `wallet` that covers `scope` (a play ban covers chat too), if any.
create or replace function game_private.active_ban(wallet text, scope text) returns public.game_bans
language plpgsql stable security definer set search_path = '' as $$
declare
  found_ban public.game_bans;
begin
  select * into found_ban from public.game_bans b
    where b.player_id = wallet and (b.scope = 'play' or b.scope = active_ban.scope)
      and (b.until is null or b.until > now())
    order by b.scope = 'play' desc
    limit 1;
  return found_ban;
end $$;
revoke all on function game_private.active_ban(text, text) from public;

-- Whether the signed-in wallet is banned from `scope` ('play' or 'chat') right now.
create or replace function public.wallet_banned(scope text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return (game_private.active_ban(public.wallet_address(), scope)).player_id is not null;
end $$;
revoke all on function public.wallet_banned(text) from public;
grant execute on function public.wallet_banned(text) to authenticated, service_role;

-- Stamps who banned and when; a ban names a reason and ends in the future, if it ends.
create or replace function game_private.stamp_ban() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new."by" := coalesce(public.wallet_address(), 'service_role');
  new.created_at := now();
  if new.until is not null and new.until <= now() then
    raise exception 'a ban ends in the future' using errcode = '23514';
  end if;
  if new.player_id = new."by" then
    raise exception 'nobody bans themselves' using errcode = '23514';
  end if;
  return new;
end $$;
create trigger game_bans_stamp before insert or update on public.game_bans
  for each row execute function game_private.stamp_ban();

-- A play ban takes the wallet out of the world at once: its presence row goes (every client
-- hears the DELETE) and the embedded server, hearing NOTIFY tessera_bans, ends its sessions.
create or replace function game_private.apply_ban() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'DELETE' then
    perform game_private.log_op(coalesce(public.wallet_address(), 'service_role'), 'unban', old.player_id,
      jsonb_build_object('scope', old.scope, 'reason', old.reason, 'until', old.until));
    return old;
  end if;
  perform game_private.log_op(new."by", 'ban', new.player_id,
    jsonb_build_object('scope', new.scope, 'reason', new.reason, 'until', new.until));
  if new.scope = 'play' then
    delete from public.game_players where player_id = new.player_id;
    perform pg_notify('tessera_bans', new.player_id);
  end if;
  return new;
end $$;
create trigger game_bans_apply after insert or update or delete on public.game_bans
  for each row execute function game_private.apply_ban();

-- Every write of a banned wallet is refused: tg_argv[0] is the scope the table belongs to.
create or replace function game_private.refuse_banned() returns trigger
language plpgsql stable security definer set search_path = '' as $$
declare
  ban public.game_bans := game_private.active_ban(public.wallet_address(), tg_argv[0]);
begin
  if ban.player_id is not null then
    raise exception 'banned from %: %', case when ban.scope = 'play' then 'play' else 'chat and voice' end, ban.reason
      using errcode = '42501',
        detail = case when ban.until is null then 'The ban does not end.' else format('The ban ends at %s.', to_char(ban.until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) end;
  end if;
  return null;
end $$;
revoke all on function game_private.refuse_banned() from public;

create trigger game_chat_messages_banned before insert on public.game_chat_messages
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('chat');
create trigger game_voice_messages_banned before insert on public.game_voice_messages
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('chat');
create trigger game_blocks_banned before insert or update or delete on public.game_blocks
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('play');
create trigger game_players_banned before insert or update or delete on public.game_players
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('play');
create trigger game_combat_logs_banned before insert on public.game_combat_logs
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('play');
create trigger game_player_stats_banned before insert or update or delete on public.game_player_stats
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('play');
create trigger game_claims_banned before insert or update or delete on public.game_claims
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('play');
create trigger game_claim_members_banned before insert or update or delete on public.game_claim_members
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('play');

-- Realtime: a wallet banned from play neither joins nor sends on private channels.
do $$
begin
  if not exists (select 1 from pg_policies where schemaname = 'realtime' and tablename = 'messages'
                 and policyname = 'banned players hear nothing') then
    create policy "banned players hear nothing" on realtime.messages as restrictive
      for select to authenticated using (not (select public.wallet_banned('play')));
  end if;
  if not exists (select 1 from pg_policies where schemaname = 'realtime' and tablename = 'messages'
                 and policyname = 'banned players say nothing') then
    create policy "banned players say nothing" on realtime.messages as restrictive
      for insert to authenticated with check (not (select public.wallet_banned('play')));
  end if;
end $$;

-- ---------------------------------------------------------------------------------------------
-- Mutes: at most 500 per wallet.
create table public.game_mutes (
  player_id text not null,
  muted_id text not null check (char_length(muted_id) between 1 and 64),
  created_at timestamptz not null default now(),
  primary key (player_id, muted_id),
  constraint game_mutes_not_self check (player_id <> muted_id)
);
alter table public.game_mutes enable row level security;
create policy "own read" on public.game_mutes for select to authenticated using (player_id = (select public.wallet_address()));
create policy "own insert" on public.game_mutes for insert to authenticated with check (player_id = (select public.wallet_address()));
create policy "own delete" on public.game_mutes for delete to authenticated using (player_id = (select public.wallet_address()));
revoke all on public.game_mutes from public, anon, authenticated, service_role;
grant select, insert, delete on public.game_mutes to authenticated;
grant select, insert, delete on public.game_mutes to service_role;

create or replace function game_private.check_mute() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  new.created_at := now();
  if (select count(*) from public.game_mutes m where m.player_id = new.player_id) >= 500 then
    raise exception 'a player mutes at most 500 wallets' using errcode = '23514';
  end if;
  return new;
end $$;
create trigger game_mutes_check before insert on public.game_mutes
  for each row execute function game_private.check_mute();
create trigger game_mutes_banned before insert or delete on public.game_mutes
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('play');

-- Voice clips of a wallet the reader muted are not readable by it: not listed over REST, not
-- delivered by Realtime (which checks each clip against the listener's policies).
create policy "not muted" on public.game_voice_messages as restrictive for select to authenticated
  using (not exists (select 1 from public.game_mutes m
                     where m.player_id = (select public.wallet_address()) and m.muted_id = game_voice_messages.player_id));

-- ---------------------------------------------------------------------------------------------
-- Reports.
create table public.game_reports (
  id bigint generated always as identity primary key,
  reporter_id text not null,
  reported_id text not null check (char_length(reported_id) between 1 and 64),
  reason text not null check (reason in ('griefing', 'harassment', 'cheating', 'spam', 'other')),
  note text not null default '' check (char_length(note) <= 200 and note !~ '[[:cntrl:]]'),
  context jsonb not null default '{}',
  status text not null default 'open' check (status in ('open', 'resolved', 'dismissed')),
  created_at timestamptz not null default now(),
  resolved_by text,
  resolved_at timestamptz,
  constraint game_reports_not_self check (reporter_id <> reported_id)
);
create unique index game_reports_one_open_idx on public.game_reports (reporter_id, reported_id) where status = 'open';
create index game_reports_reporter_idx on public.game_reports (reporter_id, created_at);
create index game_reports_created_at_idx on public.game_reports (created_at);
-- The context reads a wallet's latest chat lines and block edits.
create index game_chat_messages_player_idx on public.game_chat_messages (player_id, created_at);
create index game_block_edits_actor_idx on public.game_block_edits (actor_id, created_at);

alter table public.game_reports enable row level security;
create policy "own or operators read" on public.game_reports for select to authenticated
  using (reporter_id = (select public.wallet_address()) or (select public.is_operator()));
create policy "own insert" on public.game_reports for insert to authenticated
  with check (reporter_id = (select public.wallet_address()));
revoke all on public.game_reports from public, anon, authenticated, service_role;
grant select, insert on public.game_reports to authenticated;
grant select, insert, update on public.game_reports to service_role;

-- A report is the reporter's own, within the limits, and carries what the server saw: the
-- reported wallet's last 20 chat lines and its block edits of the last 30 minutes within 32
-- tiles of where the reporter stands.
create or replace function game_private.fill_report() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  reporter public.game_players;
  recent integer;
begin
  if coalesce(auth.role(), '') = 'authenticated' then
    perform game_private.require_own(new.reporter_id, 'game_reports');
  end if;
  -- One reporter's reports queue here, so the limits hold for concurrent ones too.
  perform pg_advisory_xact_lock(hashtext('tessera.report'), hashtext(new.reporter_id));
  select count(*) into recent from public.game_reports r
    where r.reporter_id = new.reporter_id and r.created_at > now() - interval '1 hour';
  if recent >= 5 then
    raise sqlstate 'PGRST' using
      message = json_build_object('code', 'TS429', 'message', 'Too many reports: slow down',
        'details', 'Limit: 5 reports an hour.', 'hint', 'Wait a while and try again.')::text,
      detail = jsonb_build_object('status', 429, 'headers', jsonb_build_object('Retry-After', '3600'))::text;
  end if;
  if exists (select 1 from public.game_reports r
             where r.reporter_id = new.reporter_id and r.reported_id = new.reported_id and r.status = 'open') then
    raise exception 'you already have an open report about this player' using errcode = '23505';
  end if;
  new.status := 'open';
  new.created_at := now();
  new.resolved_by := null;
  new.resolved_at := null;
  select * into reporter from public.game_players p where p.player_id = new.reporter_id;
  new.context := jsonb_build_object(
    'reported_name', (select h.player_name from public.game_held_names h where h.player_id = new.reported_id),
    'reporter_tile', case when reporter.player_id is null then null
                          else jsonb_build_object('x', floor(reporter.x / 32.0), 'y', floor(reporter.y / 32.0)) end,
    'chat', coalesce((select jsonb_agg(jsonb_build_object('name', c.player_name, 'message', c.message, 'at', c.created_at) order by c.created_at)
                      from (select * from public.game_chat_messages m where m.player_id = new.reported_id
                            order by m.created_at desc limit 20) c), '[]'),
    'edits', coalesce((select jsonb_agg(jsonb_build_object('x', e.x, 'y', e.y, 'before', e.before_type, 'before_owner', e.before_owner,
                                                            'after', e.after_type, 'at', e.created_at) order by e.id)
                       from (select * from public.game_block_edits b
                             where b.actor_id = new.reported_id and b.created_at > now() - interval '30 minutes'
                               and reporter.player_id is not null
                               and abs(b.x - floor(reporter.x / 32.0)) <= 32 and abs(b.y - floor(reporter.y / 32.0)) <= 32
                             order by b.id desc limit 100) e), '[]'));
  return new;
end $$;
create trigger game_reports_fill before insert on public.game_reports
  for each row execute function game_private.fill_report();
create trigger game_reports_banned before insert on public.game_reports
  for each statement when (coalesce(auth.role(), '') = 'authenticated') execute function game_private.refuse_banned('play');

-- Closes a report as 'resolved' or 'dismissed'.
create or replace function public.resolve_report(report_id bigint, outcome text default 'resolved') returns public.game_reports
language plpgsql security definer set search_path = '' as $$
declare
  operator text := game_private.require_operator('resolve reports');
  report public.game_reports;
begin
  if outcome not in ('resolved', 'dismissed') then
    raise exception 'a report is resolved or dismissed' using errcode = '23514';
  end if;
  update public.game_reports r set status = outcome, resolved_by = operator, resolved_at = now()
    where r.id = report_id returning * into report;
  if not found then
    raise exception 'no report %', report_id using errcode = 'P0002';
  end if;
  perform game_private.log_op(operator, outcome, report.reported_id, jsonb_build_object('report', report_id));
  return report;
end $$;
revoke all on function public.resolve_report(bigint, text) from public;
grant execute on function public.resolve_report(bigint, text) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Inspecting a tile: its edits, newest first (the history keeps a day), at most 200.
create or replace function public.tile_history(x integer, y integer)
returns table (id bigint, actor_id text, actor_name text, before_type text, before_owner text,
               after_type text, after_owner text, created_at timestamptz)
language plpgsql security definer set search_path = '' as $$
declare
  operator text := game_private.require_operator('inspect tiles');
begin
  perform game_private.log_op(operator, 'inspect', null, jsonb_build_object('x', tile_history.x, 'y', tile_history.y));
  return query
    select e.id, e.actor_id, h.player_name, e.before_type, e.before_owner, e.after_type, e.after_owner, e.created_at
    from public.game_block_edits e
    left join public.game_held_names h on h.player_id = e.actor_id
    where e.x = tile_history.x and e.y = tile_history.y
    order by e.id desc
    limit 200;
end $$;
revoke all on function public.tile_history(integer, integer) from public;
grant execute on function public.tile_history(integer, integer) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- Rollbacks: each applied one is kept, with every tile it changed, so it can be undone.
create table public.game_rollbacks (
  id bigint generated always as identity primary key,
  operator_id text not null,
  wallet text not null,
  since timestamptz not null,
  x integer not null,
  y integer not null,
  radius integer not null,
  -- [{x, y, from: {type, owner, name}, to: {type, owner, name}}]: the tile before and after.
  changes jsonb not null,
  removed integer not null,
  restored integer not null,
  skipped integer not null,
  undone_at timestamptz,
  created_at timestamptz not null default now()
);
alter table public.game_rollbacks enable row level security;
create policy "operators read" on public.game_rollbacks for select to authenticated using ((select public.is_operator()));
revoke all on public.game_rollbacks from public, anon, authenticated, service_role;
grant select on public.game_rollbacks to authenticated, service_role;

-- Writes as the server, not as the calling player: the building rules (reach, rate, names,
-- support on placement) are for players' own writes, not for an operator repairing the world.
-- The edits are still recorded with the operator's wallet as actor. Returns the claims to restore.
create or replace function game_private.act_as_server() returns text
language plpgsql security definer set search_path = '' as $$
declare
  saved text := coalesce(current_setting('request.jwt.claims', true), '');
begin
  perform set_config('request.jwt.claims',
    (coalesce(nullif(saved, ''), '{}')::jsonb || '{"role": "service_role"}'::jsonb)::text, true);
  return saved;
end $$;
revoke all on function game_private.act_as_server() from public;

-- Sets tile (x, y) to `state` ({type, owner, name}, or type null for empty).
create or replace function game_private.set_tile(tile_x integer, tile_y integer, state jsonb) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if state ->> 'type' is null then
    delete from public.game_blocks b where b.x = tile_x and b.y = tile_y;
  else
    insert into public.game_blocks (x, y, block_type, player_id, player_name)
      values (tile_x, tile_y, state ->> 'type', state ->> 'owner', state ->> 'name')
      on conflict (x, y) do update
        set block_type = excluded.block_type, player_id = excluded.player_id, player_name = excluded.player_name;
  end if;
end $$;
revoke all on function game_private.set_tile(integer, integer, jsonb) from public;

-- The name a restored block carries: its owner's held name, else the start of its address.
create or replace function game_private.owner_name(owner text) returns text
language plpgsql stable security definer set search_path = '' as $$
begin
  if owner is null then return null; end if;
  return coalesce((select h.player_name from public.game_held_names h where h.player_id = owner), left(owner, 20));
end $$;
revoke all on function game_private.owner_name(text) from public;

-- Reverses `wallet`'s placements and removals since `since` within `radius` tiles (a circle,
-- at most 64) of (x, y): each tile it edited goes back to what it was before the wallet's
-- first edit there. Tiles another wallet edited after that are left alone and counted as
-- skipped. Answers {id, dry_run, removed, restored, skipped}; with dry_run nothing changes.
create or replace function public.rollback_edits(wallet text, since timestamptz, x integer, y integer, radius integer, dry_run boolean default false)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator text := game_private.require_operator('roll back edits');
  tile record;
  changes jsonb := '[]';
  removed integer := 0;
  restored integer := 0;
  skipped integer := 0;
  saved text;
  rollback_id bigint;
begin
  if wallet is null or since is null or x is null or y is null or radius is null then
    raise exception 'a rollback names a wallet, a time, a tile and a radius' using errcode = '23514';
  end if;
  if radius < 0 or radius > 64 then
    raise exception 'the radius is 0 to 64 tiles' using errcode = '23514';
  end if;
  -- Edits in the area queue behind this rollback, so nothing changes between reading and writing.
  if not dry_run then lock table public.game_blocks in share row exclusive mode; end if;
  for tile in
    with touched as (
      select e.x, e.y, min(e.id) as first_id
      from public.game_block_edits e
      where e.actor_id = rollback_edits.wallet and e.created_at >= rollback_edits.since
        and e.x between rollback_edits.x - radius and rollback_edits.x + radius
        and e.y between rollback_edits.y - radius and rollback_edits.y + radius
        and power(e.x - rollback_edits.x, 2) + power(e.y - rollback_edits.y, 2) <= power(radius, 2)
      group by e.x, e.y
    )
    select t.x, t.y, f.before_type, f.before_owner, b.block_type as now_type, b.player_id as now_owner, b.player_name as now_name,
      exists (select 1 from public.game_block_edits o
              where o.x = t.x and o.y = t.y and o.id > t.first_id and o.actor_id is distinct from rollback_edits.wallet) as contested
    from touched t
    join public.game_block_edits f on f.id = t.first_id
    left join public.game_blocks b on b.x = t.x and b.y = t.y
    order by t.x, t.y
  loop
    if tile.contested then
      skipped := skipped + 1;
    elsif tile.before_type is not distinct from tile.now_type and tile.before_owner is not distinct from tile.now_owner then
      continue;
    else
      if tile.before_type is null then removed := removed + 1; else restored := restored + 1; end if;
      changes := changes || jsonb_build_object('x', tile.x, 'y', tile.y,
        'from', jsonb_build_object('type', tile.now_type, 'owner', tile.now_owner, 'name', tile.now_name),
        'to', jsonb_build_object('type', tile.before_type, 'owner', tile.before_owner, 'name', game_private.owner_name(tile.before_owner)));
    end if;
  end loop;
  if dry_run then
    return jsonb_build_object('id', null, 'dry_run', true, 'removed', removed, 'restored', restored, 'skipped', skipped);
  end if;
  saved := game_private.act_as_server();
  for tile in select (c ->> 'x')::int as x, (c ->> 'y')::int as y, c -> 'to' as target from jsonb_array_elements(changes) c loop
    perform game_private.set_tile(tile.x, tile.y, tile.target);
  end loop;
  perform set_config('request.jwt.claims', saved, true);
  insert into public.game_rollbacks (operator_id, wallet, since, x, y, radius, changes, removed, restored, skipped)
    values (operator, wallet, since, x, y, radius, changes, removed, restored, skipped)
    returning id into rollback_id;
  perform game_private.log_op(operator, 'rollback', wallet, jsonb_build_object('rollback', rollback_id, 'since', since,
    'x', x, 'y', y, 'radius', radius, 'removed', removed, 'restored', restored, 'skipped', skipped));
  return jsonb_build_object('id', rollback_id, 'dry_run', false, 'removed', removed, 'restored', restored, 'skipped', skipped);
end $$;
revoke all on function public.rollback_edits(text, timestamptz, integer, integer, integer, boolean) from public;
grant execute on function public.rollback_edits(text, timestamptz, integer, integer, integer, boolean) to authenticated, service_role;

-- Undoes a rollback: each tile it changed and nobody changed since goes back to what it was.
-- Answers {id, reverted, skipped}.
create or replace function public.undo_rollback(id bigint) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator text := game_private.require_operator('undo rollbacks');
  done public.game_rollbacks;
  change jsonb;
  current_block public.game_blocks;
  reverted integer := 0;
  skipped integer := 0;
  saved text;
begin
  select * into done from public.game_rollbacks r where r.id = undo_rollback.id for update;
  if not found then
    raise exception 'no rollback %', undo_rollback.id using errcode = 'P0002';
  end if;
  if done.undone_at is not null then
    raise exception 'rollback % was already undone', undo_rollback.id using errcode = '23514';
  end if;
  lock table public.game_blocks in share row exclusive mode;
  saved := game_private.act_as_server();
  for change in select c from jsonb_array_elements(done.changes) c loop
    select * into current_block from public.game_blocks b where b.x = (change ->> 'x')::int and b.y = (change ->> 'y')::int;
    if current_block.block_type is not distinct from change -> 'to' ->> 'type'
       and current_block.player_id is not distinct from change -> 'to' ->> 'owner' then
      perform game_private.set_tile((change ->> 'x')::int, (change ->> 'y')::int, change -> 'from');
      reverted := reverted + 1;
    else
      skipped := skipped + 1;
    end if;
  end loop;
  perform set_config('request.jwt.claims', saved, true);
  update public.game_rollbacks r set undone_at = now() where r.id = undo_rollback.id;
  perform game_private.log_op(operator, 'undo_rollback', done.wallet,
    jsonb_build_object('rollback', undo_rollback.id, 'reverted', reverted, 'skipped', skipped));
  return jsonb_build_object('id', undo_rollback.id, 'reverted', reverted, 'skipped', skipped);
end $$;
revoke all on function public.undo_rollback(bigint) from public;
grant execute on function public.undo_rollback(bigint) to authenticated, service_role;

-- Realtime: operators' screens hear new reports and bans live.
alter publication supabase_realtime add table public.game_reports, public.game_bans;
