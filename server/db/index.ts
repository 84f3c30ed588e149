import { join } from 'node:path';
import type { Database } from './types.js';
import { bootstrap } from './bootstrap.js';
import { lockDataDir } from './lock.js';
import { migrate } from './migrate.js';
import { openDatabase } from './open.js';

export type { Claims, Database, Field, Queryable, QueryResult } from './types.js';
export { DataDirLockedError } from './lock.js';

/**
 * Locks `dataDir`, opens the database in it, bootstraps the hosted-Supabase basics and applies
 * the migrations in `migrationsDir`. `close()` closes the database and releases the lock.
 */
export async function startDatabase(dataDir: string, migrationsDir: string): Promise<Database> {
  const unlock = lockDataDir(dataDir);
  let db: Database;
  try {
    db = await openDatabase(join(dataDir, 'pgdata'));
  } catch (error) {
    unlock();
    throw error;
  }
  const close = async () => {
    await db.close();
    unlock();
  };
  try {
    await bootstrap(db);
    await migrate(db, migrationsDir);
  } catch (error) {
    await close();
    throw error;
  }
  return { ...db, close };
}
