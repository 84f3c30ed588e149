/** What a new hosted Supabase project has before any migration, for the hosted-like suites. */
import { randomBytes } from 'node:crypto';

/** The non-superuser role that owns the project's objects, as hosted's `postgres` does. */
export const OWNER = 'project_owner';
export const OWNER_PASSWORD = randomBytes(18).toString('base64url');

/**
 * As the cluster's superuser: what a new hosted project has before any migration. The owner has
 * hosted `postgres`'s attributes (createrole, createdb, replication, bypassrls; no superuser),
 * owns `public` and the publication and administers the request roles. `auth` belongs to
 * `supabase_auth_admin`, whose tables the server reads and writes here as hosted's auth server
 * would (the owner is granted their rows, not their ownership). Nothing is granted by default.
 */
export const HOSTED_PROJECT_SQL = `
create role supabase_admin login superuser;
create role anon nologin noinherit;
create role authenticated nologin noinherit;
create role service_role nologin noinherit bypassrls;
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
create role supabase_auth_admin nologin noinherit createrole;
create role ${OWNER} login password '${OWNER_PASSWORD}' createrole createdb replication bypassrls;
grant anon, authenticated, service_role to ${OWNER} with admin option;
grant create, connect, temporary on database postgres to ${OWNER};

alter schema public owner to ${OWNER};
grant usage on schema public to anon, authenticated, service_role;

create publication supabase_realtime;
alter publication supabase_realtime owner to ${OWNER};

create schema auth authorization supabase_auth_admin;
grant usage on schema auth to anon, authenticated, service_role, ${OWNER};
set role supabase_auth_admin;
create table auth.users (
  id uuid primary key,
  aud text default 'authenticated',
  role text default 'authenticated',
  email text,
  raw_app_meta_data jsonb default '{}',
  raw_user_meta_data jsonb default '{}',
  is_anonymous boolean not null default false,
  last_sign_in_at timestamptz,
  created_at timestamptz default now(),
  updated_at timestamptz default now()
);
create table auth.identities (
  id uuid primary key default gen_random_uuid(),
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  unique (provider_id, provider)
);
create table auth.sessions (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz default now()
);
create table auth.refresh_tokens (
  token text primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  session_id uuid not null references auth.sessions (id) on delete cascade,
  revoked_at timestamptz,
  created_at timestamptz default now()
);
create table auth.revoked_sessions (session_id uuid primary key, until timestamptz not null);
create table auth.web3_used_messages (digest bytea primary key, usable_until timestamptz not null);
create table auth.jwt_secret (id boolean primary key default true check (id), secret text not null, created_at timestamptz not null default now());
-- Hosted's definitions, reading both the old per-claim settings and the claims object.
create function auth.jwt() returns jsonb language sql stable as $f$
  select coalesce(nullif(current_setting('request.jwt.claim', true), ''), nullif(current_setting('request.jwt.claims', true), ''))::jsonb
$f$;
create function auth.uid() returns uuid language sql stable as $f$
  select coalesce(nullif(current_setting('request.jwt.claim.sub', true), ''), (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'))::uuid
$f$;
create function auth.role() returns text language sql stable as $f$
  select coalesce(nullif(current_setting('request.jwt.claim.role', true), ''), (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'))::text
$f$;
grant select, insert, update, delete on all tables in schema auth to ${OWNER};
reset role;
`;

