import type { Database } from '../db/index.js';
import { createReloader } from '../db/reloader.js';

/** The channel PostgREST listens on: `NOTIFY pgrst, 'reload schema'` asks for a fresh schema cache. */
export const PGRST_CHANNEL = 'pgrst';

/**
 * An event trigger that sends `NOTIFY pgrst, 'reload schema'` after DDL that can change what REST
 * serves, as hosted Supabase projects do (their `pgrst_ddl_watch`), so a table, view, function or
 * index created while the server runs is served at once. Trigger and policy DDL is left out: it
 * changes nothing in the schema cache, and Realtime's capture re-creates its triggers at every
 * catalogue refresh. Creating an event trigger needs a superuser: elsewhere (a managed
 * DATABASE_URL) the operator sends the NOTIFY after a migration, as PostgREST's documentation says.
 */
const DDL_WATCH_SQL = `
create or replace function game_private.notify_pgrst_reload() returns event_trigger
language plpgsql as $$
begin
  perform pg_notify('${PGRST_CHANNEL}', 'reload schema');
end $$;
do $$
begin
  drop event trigger if exists pgrst_schema_reload;
  create event trigger pgrst_schema_reload on ddl_command_end
    when tag in ('CREATE SCHEMA', 'ALTER SCHEMA', 'DROP SCHEMA', 'CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO',
                 'ALTER TABLE', 'DROP TABLE', 'CREATE VIEW', 'ALTER VIEW', 'DROP VIEW', 'CREATE MATERIALIZED VIEW',
                 'ALTER MATERIALIZED VIEW', 'DROP MATERIALIZED VIEW', 'CREATE FOREIGN TABLE', 'ALTER FOREIGN TABLE',
                 'DROP FOREIGN TABLE', 'CREATE FUNCTION', 'ALTER FUNCTION', 'DROP FUNCTION', 'CREATE PROCEDURE',
                 'ALTER PROCEDURE', 'DROP PROCEDURE', 'CREATE TYPE', 'ALTER TYPE', 'DROP TYPE', 'CREATE DOMAIN',
                 'ALTER DOMAIN', 'DROP DOMAIN', 'CREATE INDEX', 'ALTER INDEX', 'DROP INDEX', 'COMMENT', 'GRANT', 'REVOKE')
    execute function game_private.notify_pgrst_reload();
exception when insufficient_privilege then
  null;
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
