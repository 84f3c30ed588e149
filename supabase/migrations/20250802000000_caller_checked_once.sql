-- Whether the caller is a player, decided once per transaction and set of claims.
--
-- Thirty triggers fire only for players: `when (coalesce(auth.role(), '') = 'authenticated')`.
-- A trigger's WHEN clause is prepared again in every statement, and preparing it inlines
-- auth.role() and auth.jwt(), parsing their SQL bodies, then evaluating it parses the request's
-- claims as jsonb. A presence heartbeat fired five of them, and a profile of the database under
-- heartbeats put 16% of its time in preparing and evaluating WHEN clauses and 8% in parsing the
-- claims (bench/README.md, the heartbeat case).
--
-- * game_private.is_player() keeps its answer for players in a transaction-local setting,
--   beside the exact claims text it was reached under, as public.wallet_address() keeps the
--   wallet (20250801001300_wallet_once_per_claims.sql). A transaction that switches claims (the
--   moderation functions, the Realtime drain) decides again for each set; a caller who is not a
--   player is never kept.
-- * Every trigger whose WHEN clause was that test now calls game_private.is_player(), a
--   PL/pgSQL function whose plan lives as long as the connection. Each trigger keeps its name
--   (so its place in the firing order), its events, its function and arguments, and the rest
--   of its WHEN clause. A WHEN clause holds the function by its identity, so the caller needs
--   EXECUTE on it (granted to all, as before) and no access to the game_private schema.
--
-- No request can write these settings (the REST API calls only functions of the schemas it
-- exposes; set_config lives in pg_catalog).

create or replace function game_private.is_player() returns boolean
language plpgsql stable set search_path = '' as $$
declare
  claims text := current_setting('request.jwt.claims', true);
begin
  if claims <> '' and current_setting('tessera.player_claims', true) = claims then
    return true;
  end if;
  if coalesce(auth.role(), '') <> 'authenticated' then
    return false;
  end if;
  if claims <> '' then
    perform set_config('tessera.player_claims', claims, true);
  end if;
  return true;
end $$;

do $$
declare
  role_test constant text := '(COALESCE(auth.role(), ''''::text) = ''authenticated''::text)';
  found_trigger record;
begin
  for found_trigger in
    select t.tgname, t.tgrelid::regclass as rel, pg_get_triggerdef(t.oid) as definition
    from pg_trigger t
    where not t.tgisinternal and strpos(pg_get_triggerdef(t.oid), role_test) > 0
    order by t.tgrelid::regclass::text, t.tgname
  loop
    execute format('drop trigger %I on %s', found_trigger.tgname, found_trigger.rel);
    execute replace(found_trigger.definition, role_test, 'game_private.is_player()');
  end loop;
  if exists (select from pg_trigger t where not t.tgisinternal and pg_get_triggerdef(t.oid) like '%auth.role()%') then
    raise exception 'a trigger still tests auth.role() in its WHEN clause';
  end if;
end $$;
