import { join } from 'node:path';
import type pg from 'pg';
import type { Database } from './types.js';
import { bootstrap } from './bootstrap.js';
import { startCluster } from './cluster.js';
import { importPgliteIfPresent } from './import-pglite.js';
import { lockDataDir } from './lock.js';
import { migrate } from './migrate.js';
import { DEFAULT_POOL_SIZE, openPool } from './pool.js';
import { log } from '../log.js';

export type { Claims, Database, Field, ParameterizedSql, Queryable, QueryResult } from './types.js';
export { DataDirLockedError } from './lock.js';
export type { SessionLock } from './session-lock.js';

/** Where the database lives and how many connections to keep. */
export interface DatabaseOptions {
  /** DATA_DIR: the lock, the embedded cluster (`postgres/`) and its socket (`run/`). */
  dataDir: string;
  migrationsDir: string;
  /** An existing PostgreSQL to use instead of starting the embedded cluster. */
  databaseUrl?: string;
  /** Pooled connections; default {@link DEFAULT_POOL_SIZE}. */
  poolSize?: number;
}

/** The server's database, and how it can be lost. */
export interface ServerDatabase extends Database {
  /** How to connect as the pool does, for tools that need a connection of their own (COPY for backups). */
  connection: pg.ClientConfig;
  /** Settles when the embedded PostgreSQL exits without being asked to; never with DATABASE_URL. */
  lost: Promise<Error>;
}

/**
 * Locks `dataDir`, starts the embedded PostgreSQL cluster in it (or connects to `databaseUrl`),
 * bootstraps the hosted-Supabase basics, applies the migrations and, once, imports a world
 * left by the earlier PGlite version. `close()` closes the pool, stops the cluster and
 * releases the lock.
 */
export async function startDatabase(options: DatabaseOptions): Promise<ServerDatabase> {
  const unlock = lockDataDir(options.dataDir);
  const cleanups: (() => Promise<void> | void)[] = [unlock];
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) await step();
  };
  try {
    let connection: pg.ClientConfig;
    let lost: Promise<Error> = new Promise<Error>(() => undefined);
    if (options.databaseUrl) {
      connection = { connectionString: options.databaseUrl };
    } else {
      const cluster = await startCluster(options.dataDir);
      let stopping = false;
      cleanups.push(() => {
        stopping = true;
        return cluster.stop();
      });
      connection = cluster.connection;
      lost = cluster.exited.then((code) => new Promise<Error>((resolve) => {
        if (!stopping) resolve(new Error(`PostgreSQL exited unexpectedly (code ${code}); see ${join(options.dataDir, 'postgres.log')}`));
      }));
    }
    const db = openPool(connection, options.poolSize ?? DEFAULT_POOL_SIZE, (error) => log.error(`database: ${error.message}`));
    cleanups.push(() => db.close());
    await bootstrap(db);
    await migrate(db, options.migrationsDir);
    await importPgliteIfPresent(db, options.dataDir);
    return { ...db, connection, lost, close: cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
