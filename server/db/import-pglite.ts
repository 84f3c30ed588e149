import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, Queryable } from './types.js';
import { log } from '../log.js';

/** Where the PGlite version of the server kept its database inside DATA_DIR. */
export const PGLITE_DIR = 'pgdata';
/** Where an imported PGlite database is moved, kept rather than deleted. */
export const PGLITE_IMPORTED_DIR = 'pgdata.pglite-imported';

/** Tables carried over, parents before children. The token secret is a file in DATA_DIR and stays where it is. */
const TABLES = ['auth.users', 'auth.identities', 'auth.sessions', 'auth.refresh_tokens'];
const ROWS_PER_BATCH = 500;

/** The reading side of a PGlite database, as much as the import needs. */
interface Source {
  query<Row>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  close(): Promise<void>;
}

async function openPglite(dir: string): Promise<Source> {
  // Loaded only here: the running server does not need PGlite.
  const { PGlite } = await import('@electric-sql/pglite');
  return PGlite.create({ dataDir: dir });
}

async function columnsOf(db: Queryable | Source, table: string): Promise<string[]> {
  const [schema, name] = table.split('.');
  const { rows } = await db.query<{ column_name: string }>(
    `select column_name from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position`,
    [schema, name],
  );
  return rows.map((row) => row.column_name);
}

async function publicTables(source: Source): Promise<string[]> {
  const { rows } = await source.query<{ name: string }>(
    `select 'public.' || table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  return rows.map((row) => row.name);
}

const quoteTable = (table: string) => table.split('.').map((part) => `"${part.replaceAll('"', '""')}"`).join('.');
const quoteColumn = (column: string) => `"${column.replaceAll('"', '""')}"`;

/** Copies every row of `table` that both databases know, by the columns they share. Returns the row count. */
async function copyTable(source: Source, tx: Queryable, table: string): Promise<number> {
  const target = await columnsOf(tx, table);
  if (target.length === 0) return 0;
  const shared = (await columnsOf(source, table)).filter((column) => target.includes(column));
  const list = shared.map(quoteColumn).join(', ');
  let copied = 0;
  for (let offset = 0; ; offset += ROWS_PER_BATCH) {
    const { rows } = await source.query<{ row: string }>(
      `select row_to_json(t)::text as row from (select ${list} from ${quoteTable(table)} order by ${list} limit ${ROWS_PER_BATCH} offset ${offset}) t`,
    );
    if (rows.length === 0) return copied;
    await tx.query(
      `insert into ${quoteTable(table)} (${list}) overriding system value
         select ${list} from json_populate_recordset(null::${quoteTable(table)}, $1::json) on conflict do nothing`,
      [`[${rows.map((r) => r.row).join(',')}]`],
    );
    copied += rows.length;
  }
}

/** Moves identity and serial sequences of `table` past the imported (or restored) rows. */
export async function advanceSequences(tx: Queryable, table: string): Promise<void> {
  for (const column of await columnsOf(tx, table)) {
    const { rows } = await tx.query<{ seq: string | null }>('select pg_get_serial_sequence($1, $2) as seq', [quoteTable(table), column]);
    const seq = rows[0]?.seq;
    if (seq) await tx.query(`select setval($1, coalesce((select max(${quoteColumn(column)}) from ${quoteTable(table)}), 0) + 1, false)`, [seq]);
  }
}

/**
 * Imports, once, the world a PGlite version of the server left in `<dataDir>/pgdata`: auth users,
 * identities, sessions and refresh tokens, and every public table (blocks, chat, presence, stats,
 * logs, voice), in one transaction with triggers off (the rows were accepted when written).
 * The old directory is then renamed to `pgdata.pglite-imported`, not deleted. Returns the rows
 * copied per table, or null when there was nothing to import.
 */
export async function importPgliteIfPresent(db: Database, dataDir: string): Promise<Record<string, number> | null> {
  const from = join(dataDir, PGLITE_DIR);
  if (!existsSync(join(from, 'PG_VERSION'))) return null;
  log.info(`Importing the world from the PGlite database in ${from}`);
  const source = await openPglite(from);
  let counts: Record<string, number>;
  try {
    const tables = [...TABLES, ...(await publicTables(source))];
    counts = await db.transaction(async (tx) => {
      await tx.query('set local statement_timeout = 0');
      // Replica mode skips triggers and foreign-key checks: the rows are copied as they were stored.
      await tx.query(`set local session_replication_role = 'replica'`);
      const copied: Record<string, number> = {};
      for (const table of tables) {
        copied[table] = await copyTable(source, tx, table);
        await advanceSequences(tx, table);
      }
      return copied;
    });
  } finally {
    await source.close();
  }
  const aside = existsSync(join(dataDir, PGLITE_IMPORTED_DIR)) ? `${PGLITE_IMPORTED_DIR}-${Date.now()}` : PGLITE_IMPORTED_DIR;
  renameSync(from, join(dataDir, aside));
  log.info(`Imported ${Object.entries(counts).map(([table, n]) => `${n} ${table}`).join(', ')}; the old files are in ${aside}`);
  return counts;
}
