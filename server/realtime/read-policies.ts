import type { Database } from '../db/index.js';
import { createReloader } from '../db/reloader.js';
import { SCHEMA_WATCH_TRIGGER } from './capture.js';
import { READ_POLICIES_MAX_AGE_MS } from './limits.js';

/**
 * The roles that no read policy of realtime.messages lets see a row, so that every private join
 * under them is refused before it costs an authorisation transaction. Read from the catalogue at
 * start and again after each schema change (the schema watch of capture.ts); a change that fires
 * no event trigger (a role's membership or BYPASSRLS) is seen within READ_POLICIES_MAX_AGE_MS.
 */
export interface ReadPolicyCatalogue {
  /**
   * Whether the read policies grant `role` nothing on any topic: row security is on for
   * realtime.messages, `role` does not bypass it (superuser, BYPASSRLS, owner without FORCE) and no
   * permissive SELECT policy applies to it or a role it belongs to. False for a role the
   * catalogue does not know, and for every role where no schema watch tells of new policies.
   */
  grantsNothing(role: string): boolean;
  /** Re-reads the catalogue; a call while one runs makes it read once more after. */
  reload(): Promise<void>;
  /** Resolves once a re-read under way is done; at once when none is. */
  settled(): Promise<void>;
}

/**
 * Roles the read policies grant nothing, as {@link ReadPolicyCatalogue.grantsNothing} defines them;
 * none when realtime.messages or the schema watch is missing. Restrictive policies only take
 * rows away, so they do not count. `pg_has_role(..., 'usage')` is the membership that policies
 * and ownership follow (privileges inherited).
 */
const ROLES_GRANTED_NOTHING_SQL = `
select r.rolname as role
from pg_roles r
join pg_class m on m.oid = to_regclass('realtime.messages')
where m.relrowsecurity
  and exists (select from pg_event_trigger where evtname = '${SCHEMA_WATCH_TRIGGER}' and evtenabled <> 'D')
  and not r.rolsuper and not r.rolbypassrls
  and (m.relforcerowsecurity or not pg_has_role(r.oid, m.relowner, 'usage'))
  and not exists (
    select from pg_policy p, unnest(p.polroles) as granted(oid)
    where p.polrelid = m.oid and p.polpermissive and p.polcmd in ('r', '*')
      and case when granted.oid = 0 then true else pg_has_role(r.oid, granted.oid, 'usage') end)`;

/** Reads the roles of `db` that the read policies grant nothing; failed re-reads are told to `log` and keep what was known. */
export async function loadReadPolicies(db: Database, log: (message: string) => void): Promise<ReadPolicyCatalogue> {
  const read = async () => new Set((await db.query<{ role: string }>(ROLES_GRANTED_NOTHING_SQL)).rows.map((row) => row.role));
  let refused = await read();
  let readAt = performance.now();
  const reloader = createReloader(
    async () => {
      try {
        refused = await read();
      } finally {
        readAt = performance.now();
      }
    },
    (error) => log(`realtime: reading the read policies failed: ${(error as Error).message}`),
  );
  return {
    grantsNothing(role) {
      if (performance.now() - readAt >= READ_POLICIES_MAX_AGE_MS && !reloader.running()) void reloader.run();
      return refused.has(role);
    },
    reload: () => reloader.run(),
    settled: () => reloader.running() ?? Promise.resolve(),
  };
}
