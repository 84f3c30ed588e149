-- Land claims in moderation (docs/moderation.md "Claims"): a ban has every consequence an
-- operator needs, and operators reach every claim.
--
-- * A play ban without end releases the wallet's land in the ban's transaction: its claims are
--   deleted (the blocks stay) and so are its trusts on others' claims. The deletes are ordinary
--   ones, so the statement triggers of 20250706000000_claims_heard_by_region.sql send "gone" and
--   "untrusted" to the players holding those regions. A timed play ban (and a chat ban) leaves
--   claims and trusts as they are: the owner builds nothing while it lasts, and its land is kept
--   for its return (the 60-day lapse still counts from its last presence). Turning a timed ban
--   into one without end releases the land then; lifting a ban gives nothing back.
-- * ops_list_claims, ops_inspect_claim and ops_remove_claim: every claim (lapsed ones included),
--   for operators only (42501 "only operators may ..." for anyone else).
-- * rollback_edits gains an overload with `claims`: 'none', 'window' (the wallet's claims made
--   since `since`) or 'all' (every claim of the wallet). The rollback without it is unchanged.
-- * Every release and removal, listing and inspection is appended to public.game_ops_log.

-- Newest claims first, for the operators' pages.
create index game_claims_created_idx on public.game_claims (created_at desc, id desc);

-- Deletes the claims `ids` as the server, in one statement (so one "gone" message per region
-- reaches the players), and answers them, oldest first, each with its count of trusted wallets.
create function game_private.delete_claims(ids uuid[]) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  saved text := game_private.act_as_server();
  gone jsonb;
begin
  -- Every part of the statement sees the rows as they were before it: the members are still there.
  with removed as (
    delete from public.game_claims c where c.id = any(ids)
    returning c.id, c.owner_id, c.owner_name, c.x1, c.y1, c.x2, c.y2, c.created_at
  )
  select coalesce(jsonb_agg(jsonb_build_object('id', r.id, 'owner_id', r.owner_id, 'owner_name', r.owner_name,
           'x1', r.x1, 'y1', r.y1, 'x2', r.x2, 'y2', r.y2, 'created_at', r.created_at,
           'members', (select count(*) from public.game_claim_members m where m.claim_id = r.id))
         order by r.created_at, r.id), '[]')
    into gone from removed r;
  perform set_config('request.jwt.claims', saved, true);
  return gone;
end $$;
revoke all on function game_private.delete_claims(uuid[]) from public;

-- ---------------------------------------------------------------------------------------------
-- A play ban without end releases the wallet's land: its trusts on others' claims, then its
-- claims. Logged as 'release_claims' when there was anything to release.
create function game_private.release_banned_land() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  saved text := game_private.act_as_server();
  untrusted integer;
  gone jsonb;
begin
  with removed as (delete from public.game_claim_members m where m.player_id = new.player_id returning 1)
  select count(*) into untrusted from removed;
  perform set_config('request.jwt.claims', saved, true);
  gone := game_private.delete_claims(array(select c.id from public.game_claims c where c.owner_id = new.player_id));
  if untrusted > 0 or jsonb_array_length(gone) > 0 then
    perform game_private.log_op(new."by", 'release_claims', new.player_id,
      jsonb_build_object('claims', gone, 'trusts', untrusted));
  end if;
  return null;
end $$;

-- After game_bans_apply (triggers fire by name), so the ban is logged before its release.
create trigger game_bans_release_land after insert or update on public.game_bans
  for each row when (new.scope = 'play' and new.until is null)
  execute function game_private.release_banned_land();

-- ---------------------------------------------------------------------------------------------
-- Operators' claim tools.

-- Claims, newest first, optionally of one `owner` and/or meeting the square of `radius` tiles
-- around (x, y). A page holds 1-200 (page_size); the next page passes the last row's created_at
-- and id as before_created and before_id. Lapsed claims are listed too (holds: false).
create function public.ops_list_claims(owner text default null, x integer default null, y integer default null,
  radius integer default null, before_created timestamptz default null, before_id uuid default null,
  page_size integer default 50)
returns table (id uuid, owner_id text, owner_name text, x1 integer, y1 integer, x2 integer, y2 integer,
               created_at timestamptz, members integer, holds boolean)
language plpgsql security definer set search_path = '' as $$
#variable_conflict use_column
declare
  operator text := game_private.require_operator('list claims');
begin
  if page_size is null or page_size < 1 or page_size > 200 then
    raise exception 'a page lists 1 to 200 claims' using errcode = '23514';
  end if;
  if (x is null) <> (y is null) or (x is null) <> (radius is null) then
    raise exception 'an area names x, y and radius' using errcode = '23514';
  end if;
  if radius < 0 or radius > 5000 then
    raise exception 'the radius is 0 to 5000 tiles' using errcode = '23514';
  end if;
  if (before_created is null) <> (before_id is null) then
    raise exception 'a page starts after both before_created and before_id' using errcode = '23514';
  end if;
  perform game_private.log_op(operator, 'list_claims', ops_list_claims.owner, jsonb_strip_nulls(jsonb_build_object(
    'x', ops_list_claims.x, 'y', ops_list_claims.y, 'radius', radius, 'before_created', before_created, 'before_id', before_id)));
  return query
    select c.id, c.owner_id, c.owner_name, c.x1, c.y1, c.x2, c.y2, c.created_at,
           (select count(*)::integer from public.game_claim_members m where m.claim_id = c.id),
           public.claim_holds(c.owner_id)
    from public.game_claims c
    where (ops_list_claims.owner is null or c.owner_id = ops_list_claims.owner)
      -- No claim is wider than 100 tiles: x1 is within 99 tiles left of the area (the index on x1, y1).
      and (ops_list_claims.x is null or (c.x1 between ops_list_claims.x - radius - 99 and ops_list_claims.x + radius
           and c.x2 >= ops_list_claims.x - radius and c.y1 <= ops_list_claims.y + radius and c.y2 >= ops_list_claims.y - radius))
      and (before_created is null or (c.created_at, c.id) < (before_created, before_id))
    order by c.created_at desc, c.id desc
    limit page_size;
end $$;
revoke all on function public.ops_list_claims(text, integer, integer, integer, timestamptz, uuid, integer) from public;
grant execute on function public.ops_list_claims(text, integer, integer, integer, timestamptz, uuid, integer) to authenticated, service_role;

-- One claim as an operator needs it: the claim, whether it holds, its owner's last presence and
-- active ban, its blocks (all, and the owner's), and its trusted wallets (at most 100, oldest
-- first). 'no claim ID' (P0002) when there is none.
create function public.ops_inspect_claim(claim_id uuid) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator text := game_private.require_operator('inspect claims');
  claim public.game_claims;
  ban public.game_bans;
begin
  select * into claim from public.game_claims c where c.id = claim_id;
  if not found then
    raise exception 'no claim %', claim_id using errcode = 'P0002';
  end if;
  perform game_private.log_op(operator, 'inspect_claim', claim.owner_id, jsonb_build_object('claim', claim_id));
  ban := game_private.active_ban(claim.owner_id, 'play');
  return to_jsonb(claim) || jsonb_build_object(
    'holds', public.claim_holds(claim.owner_id),
    'owner_last_present', (select p.at from game_private.last_positions p where p.player_id = claim.owner_id),
    'owner_ban', case when ban.player_id is null then null
                      else jsonb_build_object('scope', ban.scope, 'reason', ban.reason, 'until', ban.until) end,
    'blocks', (select count(*) from public.game_blocks b
               where b.x between claim.x1 and claim.x2 and b.y between claim.y1 and claim.y2),
    'owner_blocks', (select count(*) from public.game_blocks b
                     where b.x between claim.x1 and claim.x2 and b.y between claim.y1 and claim.y2
                       and b.player_id = claim.owner_id),
    'members', coalesce((select jsonb_agg(jsonb_build_object('player_id', m.player_id, 'player_name', m.player_name,
                                                             'added_at', m.added_at) order by m.added_at, m.player_id)
                         from (select g.player_id, h.player_name, g.added_at
                               from public.game_claim_members g
                               left join public.game_held_names h on h.player_id = g.player_id
                               where g.claim_id = ops_inspect_claim.claim_id
                               order by g.added_at, g.player_id limit 100) m), '[]'));
end $$;
revoke all on function public.ops_inspect_claim(uuid) from public;
grant execute on function public.ops_inspect_claim(uuid) to authenticated, service_role;

-- Removes any claim (its trusts go with it; the blocks stay) for `reason` (1-200 characters, no
-- control characters); the players holding its regions hear it go. Answers the removed claim.
create function public.ops_remove_claim(claim_id uuid, reason text) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator text := game_private.require_operator('remove claims');
  gone jsonb;
begin
  if reason is null or char_length(btrim(reason)) = 0 or char_length(reason) > 200 or reason ~ '[[:cntrl:]]' then
    raise exception 'a removal names a reason of 1 to 200 characters' using errcode = '23514';
  end if;
  gone := game_private.delete_claims(array[claim_id]);
  if jsonb_array_length(gone) = 0 then
    raise exception 'no claim %', claim_id using errcode = 'P0002';
  end if;
  perform game_private.log_op(operator, 'remove_claim', gone -> 0 ->> 'owner_id',
    jsonb_build_object('claim', gone -> 0, 'reason', reason));
  return gone -> 0;
end $$;
revoke all on function public.ops_remove_claim(uuid, text) from public;
grant execute on function public.ops_remove_claim(uuid, text) to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------
-- rollback_edits with claims: the tiles roll back as rollback_edits(wallet, since, x, y, radius,
-- dry_run) does, then the wallet's claims go too: 'window' those made since `since`, 'all' every
-- one, 'none' none. The answer adds `claims` (how many go, or would go with dry_run); the
-- removed claims are logged as 'rollback_claims' with the rollback's id. undo_rollback puts
-- back tiles only. `claims` has no default, so a call without it is the rollback without claims.
create function public.rollback_edits(wallet text, since timestamptz, x integer, y integer, radius integer,
  claims text, dry_run boolean default false)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  operator text := game_private.require_operator('roll back edits');
  result jsonb;
  ids uuid[];
  gone jsonb;
begin
  if claims is null or claims not in ('none', 'window', 'all') then
    raise exception 'claims is none, window or all' using errcode = '23514';
  end if;
  result := public.rollback_edits(wallet, since, x, y, radius, dry_run);
  ids := array(select c.id from public.game_claims c
               where c.owner_id = rollback_edits.wallet and claims <> 'none'
                 and (claims = 'all' or c.created_at >= rollback_edits.since));
  if dry_run then
    return result || jsonb_build_object('claims', cardinality(ids));
  end if;
  gone := game_private.delete_claims(ids);
  if jsonb_array_length(gone) > 0 then
    perform game_private.log_op(operator, 'rollback_claims', wallet, jsonb_build_object(
      'rollback', result -> 'id', 'claims_scope', claims, 'since', since, 'claims', gone));
  end if;
  return result || jsonb_build_object('claims', jsonb_array_length(gone));
end $$;
revoke all on function public.rollback_edits(text, timestamptz, integer, integer, integer, text, boolean) from public;
grant execute on function public.rollback_edits(text, timestamptz, integer, integer, integer, text, boolean) to authenticated, service_role;
