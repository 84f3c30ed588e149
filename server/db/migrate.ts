import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SCHEMA_LOCK } from './pool.js';
import type { Database } from './types.js';

const MIGRATION_NAME = /^(\d+)_(.+)\.sql$/;

/** The versions of the migrations in `dir`, in order: what a ready database has recorded. */
export async function migrationVersions(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => MIGRATION_NAME.test(f)).sort().map((f) => MIGRATION_NAME.exec(f)![1]!);
}

/**
 * Applies each `<version>_<name>.sql` of `dir` not yet recorded in
 * supabase_migrations.schema_migrations, in version order, each in its own transaction.
 * Returns the versions applied now.
 */
export async function migrate(db: Database, dir: string): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => MIGRATION_NAME.test(f)).sort();
  const done = await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations');
  const applied = new Set(done.rows.map((r) => r.version));
  const now: string[] = [];
  for (const file of files) {
    const [, version, name] = MIGRATION_NAME.exec(file)!;
    if (applied.has(version)) continue;
    const sql = await readFile(join(dir, file), 'utf8');
    await db.transaction(async (tx) => {
      // No time budget for schema changes; the schema lock keeps two nodes on one database from
      // applying the same migration at once, or one node's scripts from running beside it.
      await tx.query('set local statement_timeout = 0');
      await tx.query(`select ${SCHEMA_LOCK}`);
      const again = await tx.query('select 1 from supabase_migrations.schema_migrations where version = $1', [version]);
      if (again.rows.length > 0) return;
      await tx.exec(sql);
      await tx.query('insert into supabase_migrations.schema_migrations (version, name) values ($1, $2)', [version, name]);
    });
    now.push(version);
  }
  return now;
}
