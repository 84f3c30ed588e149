-- Land claims heard by region (docs/architecture.md "Chunks"): a claim made or abandoned, and a
-- player trusted or no longer trusted on one, reach the players who hold the claim's chunks at
-- once, and nobody else.
--
-- * Every change is broadcast from the database on the private topics 'blocks:<rx>:<ry>' of the
--   regions (game_private.tile_region) that the claim's rectangle overlaps, with the event
--   'claims': the channels the block sync already holds, so hearing claims costs a client no join.
--   A claim is at most 100x100 tiles, so at most 5x5 topics. One message per statement and
--   region, at most 256 entries each, carrying one of
--     {"made": [claim, ...]}  {"gone": [claim, ...]}   claim: {id, owner_id, owner_name, x1, y1, x2, y2}
--     {"trusted": [member, ...]}  {"untrusted": [member, ...]}   member: {claim_id, player_id}
--   Deletes included: the payload is what the client needs to drop the claim or the trust.
-- * A member row removed with its claim (on delete cascade) sends nothing: its claim is gone by
--   then, and the claim's "gone" already tells every holder of its chunks.
-- * The existing policy "signed-in users hear block changes" lets signed-in users listen on
--   'blocks:*'; no policy lets a client send there, so only the database speaks.
-- * Nothing follows these tables through postgres_changes any more: they leave the publication.

-- Sends `entries` ([{"rect": [x1, y1, x2, y2], "row": {...}}, ...]) under `kind` to the topics of
-- the regions each rectangle overlaps.
create function game_private.send_claim_changes(kind text, entries jsonb)
returns void
language plpgsql security definer set search_path = ''
as $$
declare
  message record;
begin
  for message in
    with listed as (
      select e.value->'row' as entry, e.n,
             game_private.tile_region_index((e.value->'rect'->>0)::integer) as rx1,
             game_private.tile_region_index((e.value->'rect'->>1)::integer) as ry1,
             game_private.tile_region_index((e.value->'rect'->>2)::integer) as rx2,
             game_private.tile_region_index((e.value->'rect'->>3)::integer) as ry2
      from jsonb_array_elements(entries) with ordinality as e(value, n)
    ), tagged as (
      select l.entry, l.n, rx::text || ':' || ry::text as region
      from listed l, generate_series(l.rx1, l.rx2) rx, generate_series(l.ry1, l.ry2) ry
    ), parted as (
      select entry, n, region, (row_number() over (partition by region order by n) - 1) / 256 as part
      from tagged
    )
    select region, part, jsonb_build_object(kind, jsonb_agg(entry order by n)) as payload
    from parted
    group by region, part
    order by region, part
  loop
    perform realtime.send(message.payload, 'claims', 'blocks:' || message.region, true);
  end loop;
end
$$;
revoke all on function game_private.send_claim_changes(text, jsonb) from public;

-- The entries of claims `rows` as send_claim_changes takes them.
create function game_private.claim_entries(rows jsonb)
returns jsonb
language sql immutable parallel safe
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
    'rect', jsonb_build_array(r->'x1', r->'y1', r->'x2', r->'y2'),
    'row', jsonb_build_object('id', r->'id', 'owner_id', r->'owner_id', 'owner_name', r->'owner_name',
                              'x1', r->'x1', 'y1', r->'y1', 'x2', r->'x2', 'y2', r->'y2'))), '[]'::jsonb)
  from jsonb_array_elements(rows) r
$$;
revoke all on function game_private.claim_entries(jsonb) from public;

create function game_private.broadcast_made_claims()
returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform game_private.send_claim_changes('made',
    game_private.claim_entries((select coalesce(jsonb_agg(to_jsonb(r)), '[]'::jsonb) from new_rows r)));
  return null;
end
$$;

create function game_private.broadcast_gone_claims()
returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform game_private.send_claim_changes('gone',
    game_private.claim_entries((select coalesce(jsonb_agg(to_jsonb(r)), '[]'::jsonb) from old_rows r)));
  return null;
end
$$;

-- Member rows of claims that still exist, sent on the regions of their claim.
create function game_private.broadcast_trust()
returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  changed jsonb;
begin
  if tg_op = 'INSERT' then
    select coalesce(jsonb_agg(to_jsonb(m)), '[]'::jsonb) into changed from new_rows m;
  else
    select coalesce(jsonb_agg(to_jsonb(m)), '[]'::jsonb) into changed from old_rows m;
  end if;
  perform game_private.send_claim_changes(case tg_op when 'INSERT' then 'trusted' else 'untrusted' end,
    (select coalesce(jsonb_agg(jsonb_build_object(
       'rect', jsonb_build_array(c.x1, c.y1, c.x2, c.y2),
       'row', jsonb_build_object('claim_id', m->'claim_id', 'player_id', m->'player_id'))), '[]'::jsonb)
     from jsonb_array_elements(changed) m
     join public.game_claims c on c.id = (m->>'claim_id')::uuid));
  return null;
end
$$;

create trigger game_claims_broadcast_insert after insert on public.game_claims
  referencing new table as new_rows
  for each statement execute function game_private.broadcast_made_claims();
create trigger game_claims_broadcast_delete after delete on public.game_claims
  referencing old table as old_rows
  for each statement execute function game_private.broadcast_gone_claims();
create trigger game_claim_members_broadcast_insert after insert on public.game_claim_members
  referencing new table as new_rows
  for each statement execute function game_private.broadcast_trust();
create trigger game_claim_members_broadcast_delete after delete on public.game_claim_members
  referencing old table as old_rows
  for each statement execute function game_private.broadcast_trust();

alter publication supabase_realtime drop table public.game_claims, public.game_claim_members;
