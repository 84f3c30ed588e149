/**
 * The operator's commands (`npm run backup`, `npm run restore`), bundled as dist/admin.mjs:
 *
 *   backup [FILE]             archive the world of DATA_DIR (or DATABASE_URL) while it runs
 *   restore FILE [--replace]  load an archive into DATA_DIR's cluster or DATABASE_URL
 *
 * Progress goes to standard error; the summary is one JSON line on standard output.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readSigningSecret, replaceSigningSecret, SECRET_FILE } from './auth/keys.js';
import { restoreBackup, readHeader, rowsPresent, type Progress } from './backup/archive.js';
import { backupNow } from './backup/schedule.js';
import { runningCluster } from './backup/connect.js';
import { startDatabase, type Database } from './db/index.js';
import { log } from './log.js';

const dataDir = process.env.DATA_DIR || './data';
const databaseUrl = process.env.DATABASE_URL || undefined;
const migrationsDir = join(process.cwd(), 'supabase', 'migrations');

/** Prints progress at most once a second (and the last report of each table). */
function progressPrinter(verb: string): Progress {
  let last = 0;
  let lastTable = '';
  return (table, rows, bytes) => {
    const now = performance.now();
    if (table === lastTable && now - last < 1000) return;
    last = now;
    lastTable = table;
    process.stderr.write(`${verb}: ${table} ${rows} rows, ${(bytes / 1e6).toFixed(1)} MB so far\n`);
  };
}

/** Runs `work` with a connection: the running server's cluster, DATABASE_URL, or the cluster started here (DATA_DIR locked meanwhile). */
async function withDatabase<T>(work: (connection: import('pg').ClientConfig) => Promise<T>): Promise<T> {
  const running = databaseUrl ? { connectionString: databaseUrl } : runningCluster(dataDir);
  if (running) return work(running);
  const db = await startDatabase({ dataDir, migrationsDir, poolSize: 1 });
  try {
    return await work(db.connection);
  } finally {
    await db.close();
  }
}

async function backup(file: string | undefined): Promise<void> {
  const started = performance.now();
  const result = await withDatabase((connection) => backupNow(connection, dataDir, file, progressPrinter('backup')));
  console.log(JSON.stringify({ backup: result.file, bytes: result.bytes, seconds: Number(((performance.now() - started) / 1000).toFixed(2)), tables: result.tables }));
}

/** The signing secret the target's nodes sign with: the database's, or where none is stored yet, DATA_DIR's older file. */
async function currentSecret(db: Database): Promise<string | null> {
  const stored = await readSigningSecret(db);
  if (stored !== null) return stored;
  const secretPath = join(dataDir, SECRET_FILE);
  return existsSync(secretPath) ? (await readFile(secretPath, 'utf8')).trim() : null;
}

async function restore(file: string, replace: boolean): Promise<void> {
  const started = performance.now();
  const header = await readHeader(file);
  if (!databaseUrl && runningCluster(dataDir)) throw new Error(`a server is running on ${dataDir}: stop it before restoring into it`);
  const db = await startDatabase({ dataDir, migrationsDir, databaseUrl, poolSize: 1 });
  try {
    const present = await rowsPresent(db.connection, header.tables.map((table) => table.name));
    if (Object.keys(present).length > 0 && !replace) {
      throw new Error(`the target is not empty (${Object.entries(present).map(([t, n]) => `${n} rows in ${t}`).join(', ')}): restore into a new DATA_DIR, or add --replace to empty these tables first`);
    }
    const secret = await currentSecret(db);
    if (secret !== null && secret !== header.secret && !replace) {
      throw new Error('the database holds another signing secret: add --replace to take the archive\'s (sessions signed with the current one end)');
    }
    const tables = await restoreBackup(db.connection, file, { replace, progress: progressPrinter('restore') });
    await replaceSigningSecret(db, header.secret);
    const unverified = Object.entries(tables).filter(([, t]) => t.verified === false).map(([name]) => name);
    if (unverified.length > 0) throw new Error(`rows read back differ from the archive in ${unverified.join(', ')}`);
    console.log(JSON.stringify({ restored: file, into: databaseUrl ? 'DATABASE_URL' : dataDir, seconds: Number(((performance.now() - started) / 1000).toFixed(2)), tables }));
  } finally {
    await db.close();
  }
}

const [command, ...args] = process.argv.slice(2);
try {
  if (command === 'backup') await backup(args.find((arg) => !arg.startsWith('--')));
  else if (command === 'restore') {
    const file = args.find((arg) => !arg.startsWith('--'));
    if (!file) throw new Error('usage: npm run restore -- FILE [--replace]');
    await restore(file, args.includes('--replace'));
  } else throw new Error('usage: node dist/admin.mjs backup [FILE] | restore FILE [--replace]');
} catch (error) {
  log.fatal((error as Error).message);
  process.exit(1);
}
