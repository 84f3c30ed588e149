-- Land claims (docs/rules.md, "Land claims"): a player protects what it builds, and chooses who
-- may build with it.
--
-- * public.game_claims: a rectangle of tiles (inclusive corners) owned by one wallet. Players
--   create and abandon (delete) their own; a claim is never changed in place. The database
--   refuses, with a sentence a player reads in the game: a claim smaller than 5x5 or more than
--   100 tiles wide or tall; outside the world; touching spawn (the spawn tiles and the ring of
--   tiles around them); overlapping another claim; covering blocks another wallet placed in the
--   last 24 hours; made without a fresh presence whose view meets the rectangle; beyond the
--   wallet's budget.
-- * public.game_claim_members: the wallets the owner trusts on a claim. Inside a claim only the
--   owner and its members place, change or remove blocks.
-- * Budget: 400 claim tiles, plus 100 per hour of active play (presence writes that moved, as
--   the server stamped them), up to 10,000. public.claim_budget() answers { total, used,
--   available } for the caller. Abandoning a claim returns its tiles.
-- * Expiry: a claim lapses when its owner has written no presence for 60 days (the server's
--   record of its last accepted position, game_private.last_positions.at). A lapsed claim
--   protects nothing, is not listed, costs nothing and yields to a new claim over it (which
--   deletes it); when the owner comes back, its lapsed claims are deleted. The blocks stay.
--
-- Claim writes are few: they queue on one advisory lock, so the checks see every earlier claim,
-- and an exclusion constraint on the rectangles keeps claims apart even for a writer the checks
-- do not judge (service_role). Box overlap (&&) on the inclusive corners is exactly "some tile
-- in both", and needs no extension.

create table public.game_claims (
  id uuid primary key default gen_random_uuid(),
  owner_id text not null,
  owner_name text not null constraint game_claims_owner_name check (public.is_player_name(owner_name)),
  x1 integer not null,
  y1 integer not null,
  x2 integer not null,
  y2 integer not null,
  created_at timestamptz not null default now(),
  constraint game_claims_corners check (x1 <= x2 and y1 <= y2),
  constraint game_claims_size check (x2 - x1 between 4 and 99 and y2 - y1 between 4 and 99),
  constraint game_claims_inside_world check (x1 >= -5000 and x2 <= 4999 and y1 >= -5000 and y2 <= 4999),
  constraint game_claims_clear_of_spawn check (x2 < -3 or x1 > 3 or y2 < -3 or y1 > 3),
  constraint game_claims_apart exclude using gist (box(point(x1, y1), point(x2, y2)) with &&)
);
-- The claims of one wallet (its budget, its panel); the claims in a rectangle of the world
-- (x1 >= minX - 99 bounds the scan: no claim is wider than 100 tiles).
create index game_claims_owner_idx on public.game_claims (owner_id);
create index game_claims_corner_idx on public.game_claims (x1, y1);

create table public.game_claim_members (
  claim_id uuid not null references public.game_claims (id) on delete cascade,
  player_id text not null,
  added_at timestamptz not null default now(),
  primary key (claim_id, player_id)
);
-- "Which claims am I trusted on".
create index game_claim_members_player_idx on public.game_claim_members (player_id);

-- Active play: seconds of presence that moved, counted by the server (see count_play_time).
alter table game_private.earned add column played_seconds double precision not null default 0;

-- Whether the wallet `owner` has been present within the last 60 days: its claims hold.
create or replace function public.claim_holds(owner text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
begin
  return exists (select 1 from game_private.last_positions p
                 where p.player_id = owner and p.at > now() - interval '60 days');
end $$;
revoke all on function public.claim_holds(text) from public;
grant execute on function public.claim_holds(text) to authenticated, service_role;

-- The claim tiles a wallet may hold: 400, plus 100 per hour of active play, at most 10,000.
create or replace function game_private.claim_tiles_total(wallet text) returns integer
language plpgsql stable security definer set search_path = '' as $$
begin
  return least(10000, 400 + coalesce(
    (select floor(e.played_seconds * 100 / 3600)::integer from game_private.earned e where e.player_id = wallet), 0));
end $$;

-- The tiles a wallet's claims cover.
create or replace function game_private.claim_tiles_used(wallet text) returns integer
language plpgsql stable security definer set search_path = '' as $$
begin
  return coalesce((select sum((c.x2 - c.x1 + 1) * (c.y2 - c.y1 + 1))::integer
                   from public.game_claims c where c.owner_id = wallet), 0);
end $$;

-- The caller's claim budget: { total, used, available }.
create or replace function public.claim_budget() returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  wallet text := public.wallet_address();
  total integer;
  used integer;
begin
  if wallet is null then
    raise exception 'Sign in to claim land.' using errcode = '42501';
  end if;
  total := game_private.claim_tiles_total(wallet);
  used := game_private.claim_tiles_used(wallet);
  return jsonb_build_object('total', total, 'used', used, 'available', greatest(total - used, 0));
end $$;
revoke all on function public.claim_budget() from public;
grant execute on function public.claim_budget() to authenticated;

-- ---------------------------------------------------------------------------------------------
-- Making a claim.
create or replace function game_private.check_claim() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  me public.game_players;
  reach double precision;
  width integer := new.x2 - new.x1 + 1;
  height integer := new.y2 - new.y1 + 1;
  other record;
  available integer;
begin
  new.created_at := now();
  if not game_private.is_player() then return new; end if;
  perform game_private.require_own(new.owner_id, 'game_claims');
  perform pg_advisory_xact_lock(hashtext('tessera.claims'));
  if new.x1 > new.x2 or new.y1 > new.y2 then
    raise exception 'A claim''s first corner is its top left one.' using errcode = '23514';
  end if;
  if width < 5 or height < 5 then
    raise exception 'A claim is at least 5x5 tiles; this one is %x%.', width, height using errcode = '23514';
  end if;
  if width > 100 or height > 100 then
    raise exception 'A claim is at most 100 tiles wide and 100 tall; this one is %x%.', width, height using errcode = '23514';
  end if;
  if new.x1 < -5000 or new.x2 > 4999 or new.y1 < -5000 or new.y2 > 4999 then
    raise exception 'That land is outside the world.' using errcode = '23514';
  end if;
  if not (new.x2 < -3 or new.x1 > 3 or new.y2 < -3 or new.y1 > 3) then
    raise exception 'Nobody claims spawn: keep the claim one tile clear of the spawn area.' using errcode = '23514';
  end if;
  select * into me from public.game_players where player_id = new.owner_id;
  if not found or me.last_seen < now() - interval '30 seconds' then
    raise exception 'Only a player in the world claims land.' using errcode = '23514';
  end if;
  -- The rectangle must meet the player's view (the rule of blocks, game_private.check_block_reach).
  reach := 225 * greatest(extract(epoch from now() - me.last_seen), 0);
  if new.x2 * 32 + 32 <= me.x - 400 - reach or new.x1 * 32 >= me.x + 400 + reach
     or new.y2 * 32 + 32 <= me.y - 300 - reach or new.y1 * 32 >= me.y + 300 + reach then
    raise exception 'Stand where you can see the land you claim.' using errcode = '23514';
  end if;
  new.owner_name := me.player_name;
  -- Lapsed claims in the way give way.
  delete from public.game_claims c
    where box(point(c.x1, c.y1), point(c.x2, c.y2)) && box(point(new.x1, new.y1), point(new.x2, new.y2))
      and not public.claim_holds(c.owner_id);
  select c.owner_name into other from public.game_claims c
    where box(point(c.x1, c.y1), point(c.x2, c.y2)) && box(point(new.x1, new.y1), point(new.x2, new.y2))
    limit 1;
  if found then
    raise exception 'This land is already claimed by %.', other.owner_name using errcode = '23514';
  end if;
  select b.player_name into other from public.game_blocks b
    where b.x between new.x1 and new.x2 and b.y between new.y1 and new.y2
      and b.player_id <> new.owner_id and b.created_at > now() - interval '24 hours'
    limit 1;
  if found then
    raise exception '% built here in the last 24 hours: leave their blocks out of the claim.', other.player_name
      using errcode = '23514';
  end if;
  available := game_private.claim_tiles_total(new.owner_id) - game_private.claim_tiles_used(new.owner_id);
  if width * height > available then
    raise exception 'This claim needs % tiles; you have % left.', width * height, greatest(available, 0)
      using errcode = '23514';
  end if;
  return new;
end $$;

create trigger game_claims_authority before insert on public.game_claims
  for each row execute function game_private.check_claim();

-- ---------------------------------------------------------------------------------------------
-- Trusting a wallet on a claim: the owner only (row-level security), not itself, at most 50.
create or replace function game_private.check_claim_member() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  claim public.game_claims;
begin
  new.added_at := now();
  if not game_private.is_player() then return new; end if;
  select * into claim from public.game_claims where id = new.claim_id for update;
  if not found or claim.owner_id is distinct from public.wallet_address() then
    raise exception 'new row violates row-level security policy for table "game_claim_members"' using errcode = '42501';
  end if;
  if new.player_id = claim.owner_id then
    raise exception 'You already own this claim.' using errcode = '23514';
  end if;
  if (select count(*) from public.game_claim_members m where m.claim_id = new.claim_id) >= 50 then
    raise exception 'A claim trusts at most 50 players.' using errcode = '23514';
  end if;
  return new;
end $$;

create trigger game_claim_members_authority before insert on public.game_claim_members
  for each row execute function game_private.check_claim_member();

-- Making claims and trusting players take tokens from one bucket: a burst of 20, then 1 every
-- 2 seconds. Deletes need none: there is never more to delete than was inserted (and abandoning
-- a claim removes its member rows in the same statement).
create trigger game_claims_rate before insert on public.game_claims
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_rate('claim changes', '20', '0.5');
create trigger game_claim_members_rate before insert on public.game_claim_members
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_rate('claim changes', '20', '0.5');

-- ---------------------------------------------------------------------------------------------
-- Building inside a claim: the owner and its members only. One index probe per block write;
-- the writer's wallet is looked up only when a claim covers the tile.
-- The owner's name of a claim covering tile (x, y) that the caller may not build on, or null.
create or replace function game_private.claim_barring(tile_x integer, tile_y integer) returns text
language plpgsql stable security definer set search_path = '' as $$
declare
  claim record;
  wallet text;
begin
  select c.id, c.owner_id, c.owner_name into claim from public.game_claims c
    where box(point(c.x1, c.y1), point(c.x2, c.y2)) && box(point(tile_x, tile_y), point(tile_x, tile_y))
    limit 1;
  if not found then return null; end if;
  wallet := public.wallet_address();
  if claim.owner_id = wallet
     or exists (select 1 from public.game_claim_members m where m.claim_id = claim.id and m.player_id = wallet)
     or not public.claim_holds(claim.owner_id) then
    return null;
  end if;
  return claim.owner_name;
end $$;

-- The support rule's removal of floating blocks is judged too: a removal that would sink blocks
-- on land the remover may not build on is refused as a whole.
create or replace function game_private.check_claimed_land() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  owner text;
begin
  if game_private.removing_orphans() then
    owner := game_private.claim_barring(old.x, old.y);
    if owner is not null then
      raise exception 'That would sink blocks on land claimed by %.', owner using errcode = '42501';
    end if;
    return old;
  end if;
  if tg_op <> 'DELETE' then
    owner := game_private.claim_barring(new.x, new.y);
  end if;
  if owner is null and tg_op <> 'INSERT' and (tg_op = 'DELETE' or old.x <> new.x or old.y <> new.y) then
    owner := game_private.claim_barring(old.x, old.y);
  end if;
  if owner is not null then
    raise exception 'This land is claimed by %.', owner using errcode = '42501';
  end if;
  return coalesce(new, old);
end $$;

-- After game_blocks_reach (out of reach is said first), before game_blocks_stamp and _support.
create trigger game_blocks_rights before insert or update or delete on public.game_blocks
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.check_claimed_land();

-- ---------------------------------------------------------------------------------------------
-- Active play: each presence write that moved counts the time since the one before it, at most
-- 10 s (the client writes every 5 s), so play time never runs faster than the clock.
-- game_private.earned is already locked by this write's stamp_presence.
create or replace function game_private.count_play_time() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update game_private.earned
    set played_seconds = played_seconds + least(greatest(extract(epoch from now() - old.last_seen), 0), 10)
    where player_id = new.player_id;
  return null;
end $$;

create trigger game_players_play_time after update on public.game_players
  for each row when (coalesce(auth.role(), '') = 'authenticated' and (old.x <> new.x or old.y <> new.y))
  execute function game_private.count_play_time();

-- A wallet back after 60 days without presence: its lapsed claims are deleted (the blocks stay).
-- Runs before game_players_movement (trigger order is by name), so the last position it reads
-- is the one before this write. A heartbeat of a present player never calls it.
create or replace function game_private.drop_lapsed_claims() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not public.claim_holds(new.player_id) then
    delete from public.game_claims where owner_id = new.player_id;
  end if;
  return null;
end $$;

create trigger game_players_lapse_insert after insert on public.game_players
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.drop_lapsed_claims();
create trigger game_players_lapse_update after update on public.game_players
  for each row when (coalesce(auth.role(), '') = 'authenticated' and old.last_seen < now() - interval '60 days')
  execute function game_private.drop_lapsed_claims();

-- ---------------------------------------------------------------------------------------------
-- Access. Signed-in players read claims that hold and every member row; they insert and delete
-- their own claims and the member rows of their own claims (a member may also leave). Nobody
-- changes a claim or a member row in place.
alter table public.game_claims enable row level security;
alter table public.game_claim_members enable row level security;

create policy "signed-in read holding claims" on public.game_claims for select to authenticated
  using (public.claim_holds(owner_id));
create policy "own insert" on public.game_claims for insert to authenticated
  with check (owner_id = (select public.wallet_address()));
create policy "own delete" on public.game_claims for delete to authenticated
  using (owner_id = (select public.wallet_address()));

create policy "signed-in read" on public.game_claim_members for select to authenticated using (true);
create policy "owner insert" on public.game_claim_members for insert to authenticated
  with check (exists (select 1 from public.game_claims c
                      where c.id = claim_id and c.owner_id = (select public.wallet_address())));
create policy "owner or member delete" on public.game_claim_members for delete to authenticated
  using (player_id = (select public.wallet_address())
         or exists (select 1 from public.game_claims c
                    where c.id = claim_id and c.owner_id = (select public.wallet_address())));

revoke all on public.game_claims, public.game_claim_members from public, anon, authenticated, service_role;
grant select, insert, delete on public.game_claims, public.game_claim_members to authenticated;
grant select on public.game_claims, public.game_claim_members to anon;
grant select, insert, update, delete on public.game_claims, public.game_claim_members to service_role;

revoke all on function game_private.claim_tiles_total(text), game_private.claim_tiles_used(text),
  game_private.claim_barring(integer, integer) from public;

-- Every claim and member change reaches the players at once; a deleted row carries its key.
alter publication supabase_realtime add table public.game_claims, public.game_claim_members;
