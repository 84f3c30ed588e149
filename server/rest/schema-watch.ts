import type { Database } from '../db/index.js';

/** The channel PostgREST listens on: `NOTIFY pgrst, 'reload schema'` asks for a fresh schema cache. */
export const PGRST_CHANNEL = 'pgrst';

/**
 * An event trigger that sends `NOTIFY pgrst, 'reload schema'` after any DDL, as hosted Supabase
 * projects do (their `pgrst_ddl_watch`), so a table, view or function created while the server
 * runs is served at once. Creating an event trigger needs a superuser: elsewhere (a managed
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
  create event trigger pgrst_schema_reload on ddl_command_end execute function game_private.notify_pgrst_reload();
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
  let running: Promise<void> | null = null;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await reload();
      } while (again);
    })()
      .catch((error: unknown) => log(`rest: schema reload failed: ${(error as Error).message}`))
      .finally(() => {
        running = null;
      });
  };
  return db.listen(PGRST_CHANNEL, (payload) => {
    if (payload === '' || payload === 'reload schema') run();
  });
}
