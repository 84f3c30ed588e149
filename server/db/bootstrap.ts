import type { Database } from './types.js';

/**
 * What a hosted Supabase project has before any migration runs: the request roles with their
 * statement budgets (anon 3 s, authenticated 8 s), the auth
 * schema subset that Web3 and password sign-in use (and the nodes' shared signing secret), its helper functions, usage of `public` (no default grants),
 * the `supabase_realtime` publication and the migrations bookkeeping table. Idempotent, and what
 * already exists is kept: on a hosted-like database the owner is not a superuser and may not touch
 * the roles' settings or the auth server's schema, which are there already
 * (test/server/db/hosted-like.test.ts).
 */
const BOOTSTRAP_SQL = `
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then create role anon nologin noinherit; end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then create role authenticated nologin noinherit; end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then create role service_role nologin noinherit bypassrls; end if;
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then create publication supabase_realtime; end if;
  -- Hosted Supabase's request budgets, kept where an operator already chose others.
  if not exists (select 1 from pg_db_role_setting s join pg_roles r on r.oid = s.setrole, unnest(s.setconfig) c
                  where r.rolname = 'anon' and c like 'statement_timeout=%') then
    alter role anon set statement_timeout = '3s';
  end if;
  if not exists (select 1 from pg_db_role_setting s join pg_roles r on r.oid = s.setrole, unnest(s.setconfig) c
                  where r.rolname = 'authenticated' and c like 'statement_timeout=%') then
    alter role authenticated set statement_timeout = '8s';
  end if;
end $$;

-- Usage of public, and no default privileges: as on Supabase projects since 2026, each
-- migration grants its own tables, sequences and functions. (The revokes clear the defaults
-- that DATA_DIRs made by earlier versions still hold.)
grant usage on schema public to anon, authenticated, service_role;
alter default privileges in schema public revoke all on tables from anon, authenticated, service_role;
alter default privileges in schema public revoke all on sequences from anon, authenticated, service_role;
alter default privileges in schema public revoke all on functions from anon, authenticated, service_role;

-- The auth schema: created where missing, and left alone where hosted's auth server (another
-- role) already owns it, since the owner of a hosted project may not create objects in it.
do $$
begin
  if to_regnamespace('auth') is null then
    create schema auth;
    grant usage on schema auth to anon, authenticated, service_role;
  end if;
  if to_regclass('auth.users') is null then
    create table auth.users (
      id uuid primary key,
      aud text not null default 'authenticated',
      role text not null default 'authenticated',
      email text,
      raw_app_meta_data jsonb not null default '{}',
      raw_user_meta_data jsonb not null default '{}',
      is_anonymous boolean not null default false,
      last_sign_in_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
  end if;
  -- Email-and-password users (made through the admin API): their password hash and when their
  -- address was confirmed, and one user per address. Added only where this server owns the table.
  if (select c.relowner from pg_class c where c.oid = 'auth.users'::regclass) = current_user::regrole then
    alter table auth.users add column if not exists encrypted_password text;
    alter table auth.users add column if not exists email_confirmed_at timestamptz;
    create unique index if not exists users_email_key on auth.users (email);
  end if;
  if to_regclass('auth.identities') is null then
    create table auth.identities (
      id uuid primary key default gen_random_uuid(),
      provider_id text not null,
      user_id uuid not null references auth.users (id) on delete cascade,
      identity_data jsonb not null,
      provider text not null,
      last_sign_in_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (provider_id, provider)
    );
    create index identities_user_id_idx on auth.identities (user_id);
  end if;
  if to_regclass('auth.sessions') is null then
    create table auth.sessions (
      id uuid primary key,
      user_id uuid not null references auth.users (id) on delete cascade,
      created_at timestamptz not null default now()
    );
  end if;
  if to_regclass('auth.refresh_tokens') is null then
    create table auth.refresh_tokens (
      token text primary key,
      user_id uuid not null references auth.users (id) on delete cascade,
      session_id uuid not null references auth.sessions (id) on delete cascade,
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    );
  end if;
  -- Sessions that ended while their access tokens may still be unexpired (server/auth/revocations.ts).
  if to_regclass('auth.revoked_sessions') is null then
    create table auth.revoked_sessions (
      session_id uuid primary key,
      until timestamptz not null
    );
  end if;
  -- The secret every node signs and verifies tokens with (server/auth/keys.ts): one row, which
  -- no request role may read.
  if to_regclass('auth.jwt_secret') is null then
    create table auth.jwt_secret (
      id boolean primary key default true check (id),
      secret text not null,
      created_at timestamptz not null default now()
    );
    revoke all on auth.jwt_secret from public, anon, authenticated, service_role;
  end if;
  -- Signed Web3 sign-in messages already used, until they would be refused anyway (server/auth/users.ts).
  if to_regclass('auth.web3_used_messages') is null then
    create table auth.web3_used_messages (
      digest bytea primary key,
      usable_until timestamptz not null
    );
    create index web3_used_messages_usable_until_idx on auth.web3_used_messages (usable_until);
  end if;
  -- The helper functions, (re)defined unless another role (hosted's auth server) owns them.
  if not exists (select 1 from pg_proc p where p.oid in (to_regprocedure('auth.jwt()'), to_regprocedure('auth.uid()'), to_regprocedure('auth.role()'))
                  and p.proowner <> current_user::regrole) then
    create or replace function auth.jwt() returns jsonb language sql stable as $f$
      select coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb
    $f$;
    create or replace function auth.uid() returns uuid language sql stable as $f$
      select nullif(auth.jwt() ->> 'sub', '')::uuid
    $f$;
    create or replace function auth.role() returns text language sql stable as $f$
      select nullif(auth.jwt() ->> 'role', '')::text
    $f$;
    grant execute on function auth.jwt(), auth.uid(), auth.role() to anon, authenticated, service_role;
  end if;
end $$;

create schema if not exists supabase_migrations;
create table if not exists supabase_migrations.schema_migrations (
  version text primary key,
  name text not null,
  applied_at timestamptz not null default now()
);
`;

/** Applies {@link BOOTSTRAP_SQL} as the database owner. */
export async function bootstrap(db: Database): Promise<void> {
  await db.exec(BOOTSTRAP_SQL);
}
