import type { Database } from '../db/index.js';
import { createReloader } from '../db/reloader.js';
import type { TableLookup } from './bindings.js';
import { captureTables } from './capture.js';
import { loadAccess, loadTables } from './catalog.js';
import type { Access, TableInfo } from './catalog.js';
import { CATALOGUE_REFRESH_MS } from './limits.js';

/** The published tables as the hub knows them, and what each role may read of them, re-read after schema changes. */
export interface TableCatalogue {
  lookup: TableLookup;
  /** What `role` may read of `table`, loaded once per role and table until the next re-read. */
  access(role: string, table: TableInfo): Promise<Access>;
  /** Re-reads the publication (capturing new tables); a call while one runs makes it read once more after. */
  reload(): Promise<void>;
  /** Starts a re-read in the background unless one runs or one ended less than CATALOGUE_REFRESH_MS ago. */
  refreshSoon(): void;
  /** Resolves once a re-read under way is done; at once when none is. */
  settled(): Promise<void>;
}

/** Loads the published tables of `db`; failed re-reads are told to `log` and keep the tables known before. */
export async function loadTableCatalogue(db: Database, log: (message: string) => void): Promise<TableCatalogue> {
  let tables = await loadTables(db);
  const accessCache = new Map<string, Promise<Access>>();
  let lastRefresh = performance.now();
  const reloader = createReloader(
    async () => {
      try {
        await captureTables(db);
        tables = await loadTables(db);
        accessCache.clear();
      } finally {
        lastRefresh = performance.now();
      }
    },
    (error) => log(`realtime: catalogue refresh failed: ${(error as Error).message}`),
  );
  return {
    lookup: {
      find: (schema, table) =>
        [...tables.values()].filter((t) => t.schema === schema && (table === undefined || table === '*' || t.name === table)),
    },
    access(role, table) {
      const key = `${role}\0${table.oid}`;
      let access = accessCache.get(key);
      if (!access) {
        access = loadAccess(db, table, role);
        accessCache.set(key, access);
        access.catch(() => accessCache.delete(key));
      }
      return access;
    },
    reload: () => reloader.run(),
    refreshSoon() {
      if (!reloader.running() && performance.now() - lastRefresh >= CATALOGUE_REFRESH_MS) void reloader.run();
    },
    settled: () => reloader.running() ?? Promise.resolve(),
  };
}
