-- Tessera edit history: every change to game_blocks is recorded (who, where, what was there
-- before, what is there after, when) by a trigger, so that a player can see which of their
-- blocks others removed and put them back.
--
-- Putting a block back is an ordinary placement: an insert into game_blocks, checked by the same
-- policies and triggers as building (own player_id only, empty tile only because (x, y) is the
-- primary key, outside spawn, inside the world, the blocks rate limit). So nobody can restore or
-- undo a block as another player: a placement always records its placer, the signed-in wallet.
--
-- Hosted projects may not grant new tables to the API roles by default, so this migration
-- states every privilege: players read the rows about themselves, nobody writes rows but the
-- trigger (security definer), service_role may read and prune, anon gets nothing.

create table public.game_block_edits (
  id bigint generated always as identity primary key,
  x integer not null,
  y integer not null,
  -- The wallet that made the edit; null when the server itself (service_role, owner) did.
  actor_id text,
  -- The block before and after the edit; both null never happens, one null means empty.
  before_type text,
  before_owner text,
  after_type text,
  after_owner text,
  created_at timestamptz not null default now(),
  constraint game_block_edits_changes check (before_type is not null or after_type is not null)
);
-- "Which of my blocks did others remove lately, here": by former owner and time.
create index game_block_edits_before_owner_idx on public.game_block_edits (before_owner, created_at);
create index game_block_edits_created_at_idx on public.game_block_edits (created_at);

alter table public.game_block_edits enable row level security;

-- A player reads the edits they made and the edits to blocks that were or became theirs.
create policy "involved read" on public.game_block_edits for select to authenticated
  using ((select public.wallet_address()) in (actor_id, before_owner, after_owner));

revoke all on public.game_block_edits from public, anon, authenticated, service_role;
grant select on public.game_block_edits to authenticated;
grant select, delete on public.game_block_edits to service_role;

-- History is kept for a day (restoring looks back 30 minutes); older rows are pruned as new
-- edits arrive, so the table stays bounded by a day of building.
-- One statement-level trigger per kind of edit, reading the statement's transition tables: a
-- batch of N blocks costs one insert into the history, one lookup of the acting wallet and one
-- prune, not N of each.
create or replace function game_private.record_block_edits() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  actor text := public.wallet_address();
begin
  if tg_op = 'INSERT' then
    insert into public.game_block_edits (x, y, actor_id, after_type, after_owner)
      select n.x, n.y, actor, n.block_type, n.player_id from new_rows n;
  elsif tg_op = 'DELETE' then
    insert into public.game_block_edits (x, y, actor_id, before_type, before_owner)
      select o.x, o.y, actor, o.block_type, o.player_id from old_rows o;
  else
    -- (x, y) is the primary key: an update that moves a block is a removal and a placement.
    insert into public.game_block_edits (x, y, actor_id, before_type, before_owner, after_type, after_owner)
      select coalesce(n.x, o.x), coalesce(n.y, o.y), actor, o.block_type, o.player_id, n.block_type, n.player_id
      from old_rows o full join new_rows n on n.x = o.x and n.y = o.y;
  end if;
  delete from public.game_block_edits where created_at < now() - interval '1 day';
  return null;
end $$;
revoke all on function game_private.record_block_edits() from public;

create trigger game_blocks_history_insert after insert on public.game_blocks
  referencing new table as new_rows for each statement execute function game_private.record_block_edits();
create trigger game_blocks_history_delete after delete on public.game_blocks
  referencing old table as old_rows for each statement execute function game_private.record_block_edits();
create trigger game_blocks_history_update after update on public.game_blocks
  referencing old table as old_rows new table as new_rows for each statement execute function game_private.record_block_edits();
