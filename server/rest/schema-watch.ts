import type { Database } from '../db/index.js';
import { createReloader } from '../db/reloader.js';

/** The channel PostgREST listens on: `NOTIFY pgrst, 'reload schema'` asks for a fresh schema cache. */
export const PGRST_CHANNEL = 'pgrst';

/** The schema of the server's own database objects that serve REST: hosted Supabase keeps its DDL watch there too. */
const SERVER_SCHEMA = 'extensions';

/** DDL tags after which the schema cache may differ: what can change a table, view, function, type or grant. */
const RELOAD_TAGS = [
  'CREATE SCHEMA', 'ALTER SCHEMA', 'DROP SCHEMA', 'CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TABLE', 'DROP TABLE',
  'CREATE VIEW', 'ALTER VIEW', 'DROP VIEW', 'CREATE MATERIALIZED VIEW', 'ALTER MATERIALIZED VIEW', 'DROP MATERIALIZED VIEW',
  'CREATE FOREIGN TABLE', 'ALTER FOREIGN TABLE', 'DROP FOREIGN TABLE', 'CREATE FUNCTION', 'ALTER FUNCTION', 'DROP FUNCTION',
  'CREATE PROCEDURE', 'ALTER PROCEDURE', 'DROP PROCEDURE', 'CREATE TYPE', 'ALTER TYPE', 'DROP TYPE', 'CREATE DOMAIN',
  'ALTER DOMAIN', 'DROP DOMAIN', 'CREATE INDEX', 'ALTER INDEX', 'DROP INDEX', 'COMMENT', 'GRANT', 'REVOKE',
];

/**
 * An event trigger that sends `NOTIFY pgrst, 'reload schema'` after DDL that can change what REST
 * serves, as hosted Supabase projects do (their `extensions.pgrst_ddl_watch`), so a table, view,
 * function or index created while the server runs is served at once. Trigger and policy DDL is
 * left out: it changes nothing in the schema cache, and Realtime's capture re-creates its
 * triggers at every catalogue refresh. Its function lives in {@link SERVER_SCHEMA}, beside
 * hosted's own and out of the game's schemas. Creating an event trigger needs a superuser:
 * elsewhere (a managed DATABASE_URL) nothing is created and the operator sends the NOTIFY after
 * a migration, as PostgREST's documentation says.
 *
 * Earlier versions kept the function in the game's `game_private` schema as
 * `notify_pgrst_reload()`; it is dropped (after the event trigger that used it is moved), unless
 * an event trigger this role may not replace still calls it.
 */
const DDL_WATCH_SQL = `
do $$
begin
  if (select rolsuper from pg_roles where rolname = current_user) then
    drop event trigger if exists pgrst_schema_reload;
    create schema if not exists ${SERVER_SCHEMA};
    create or replace function ${SERVER_SCHEMA}.pgrst_schema_reload() returns event_trigger
    language plpgsql as $f$
    begin
      perform pg_notify('${PGRST_CHANNEL}', 'reload schema');
    end $f$;
    revoke all on function ${SERVER_SCHEMA}.pgrst_schema_reload() from public;
    create event trigger pgrst_schema_reload on ddl_command_end
      when tag in (${RELOAD_TAGS.map((tag) => `'${tag}'`).join(', ')})
      execute function ${SERVER_SCHEMA}.pgrst_schema_reload();
  end if;
  begin
    drop function if exists game_private.notify_pgrst_reload();
  exception when dependent_objects_still_exist or insufficient_privilege then
    null;
  end;
end $$;
`;

/**
 * Keeps a schema cache fresh: installs the DDL watch where it may, then runs `reload` on each
 * `NOTIFY pgrst, 'reload schema'` (or an empty payload). Notifications that arrive while a reload
 * runs are folded into one more reload after it, so a migration of a hundred statements costs
 * two reloads, not a hundred. A failed reload keeps the previous cache and is reported to `log`.
 * Resolves to a function that stops listening.
 */
export async function watchSchema(db: Database, reload: () => Promise<void>, log: (message: string) => void): Promise<() => Promise<void>> {
  await db.exec(DDL_WATCH_SQL);
  const reloader = createReloader(reload, (error) => log(`rest: schema reload failed: ${(error as Error).message}`));
  return db.listen(PGRST_CHANNEL, (payload) => {
    if (payload === '' || payload === 'reload schema') void reloader.run();
  });
}
