-- The caller's wallet, looked up once per transaction and set of claims.
--
-- public.wallet_address() stands behind every policy, trigger and rate bucket that names the
-- caller, so one presence heartbeat asked for it about twenty times, and a crowd of 250 players
-- about ten thousand times in twelve seconds: one index lookup of auth.identities each time, the
-- largest single cost of the database under a crowd. The answer depends only on the claims the
-- request runs under (auth.uid() reads request.jwt.claims) and on the caller's identity rows,
-- which no request changes. So the first call of a transaction keeps the wallet it found in two
-- transaction-local settings, beside the exact claims text it was found for, and later calls
-- under the same claims read it back. A transaction that switches claims (the Realtime drain
-- checks each subscriber's policies in turn) looks the wallet up again for each set of claims;
-- a caller without a wallet is never kept, so a wallet linked later in the transaction is found.
--
-- No request can write these settings: the REST API calls only functions of the schemas it
-- exposes (public, unless PGRST_DB_SCHEMAS names others), and set_config lives in pg_catalog,
-- which no deployment should expose.

create or replace function public.wallet_address() returns text
language plpgsql stable security definer set search_path = '' as $$
declare
  claims text := current_setting('request.jwt.claims', true);
  wallet text;
begin
  if claims <> '' and current_setting('tessera.wallet_claims', true) = claims then
    return current_setting('tessera.wallet', true);
  end if;
  wallet := (select i.identity_data -> 'custom_claims' ->> 'address'
             from auth.identities i
             where i.user_id = auth.uid() and i.provider = 'web3'
             order by i.created_at
             limit 1);
  if wallet is not null and claims <> '' then
    perform set_config('tessera.wallet', wallet, true), set_config('tessera.wallet_claims', claims, true);
  end if;
  return wallet;
end $$;
