import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { SECRET_FILE, SIGNING_SECRET_SQL } from '../auth/keys.js';
import { log } from '../log.js';
import { writeBackup, type Progress, type TableSummary } from './archive.js';

/** The folder in DATA_DIR where scheduled backups (and `npm run backup` without a file) go. */
export const BACKUPS_DIR = 'backups';
/** Names of the backups this server writes, which are the ones BACKUP_KEEP prunes. */
const BACKUP_NAME = /^tessera-\d{8}T\d{9}Z\.backup\.gz$/;

/** What a backup wrote. */
export interface BackupResult {
  file: string;
  bytes: number;
  tables: Record<string, TableSummary>;
}

/** `tessera-YYYYMMDDTHHMMSSmmmZ.backup.gz` (UTC, to the millisecond) for now. */
function backupName(now = new Date()): string {
  return `tessera-${now.toISOString().replace(/[-:.]/g, '')}.backup.gz`;
}

/**
 * The signing secret to archive: the database's, or on a database no upgraded server has
 * started on yet, the one DATA_DIR/{@link SECRET_FILE} still holds.
 */
async function secretToArchive(connection: pg.ClientConfig, dataDir: string): Promise<string> {
  const client = new pg.Client(connection);
  await client.connect();
  try {
    const { rows } = await client.query<{ secret: string }>(SIGNING_SECRET_SQL);
    if (rows[0]) return rows[0].secret;
  } finally {
    await client.end();
  }
  const file = await readFile(join(dataDir, SECRET_FILE), 'utf8').catch(() => null);
  if (file === null) throw new Error('no signing secret to archive: the database holds none (start the server once) and DATA_DIR has no older one');
  return file.trim();
}

/** Backs up the world `connection` reaches, with the nodes' signing secret, to `file` (default: a new file in DATA_DIR/backups). */
export async function backupNow(connection: pg.ClientConfig, dataDir: string, file?: string, progress?: Progress): Promise<BackupResult> {
  const target = file ?? join(dataDir, BACKUPS_DIR, backupName());
  if (!file) await mkdir(join(dataDir, BACKUPS_DIR), { recursive: true, mode: 0o700 });
  const secret = await secretToArchive(connection, dataDir);
  // Written under a temporary name and renamed when whole: a cut-off backup never passes for one.
  const partial = `${target}.partial`;
  let tables;
  try {
    tables = await writeBackup(connection, secret, partial, progress);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  await rename(partial, target);
  return { file: target, bytes: (await stat(target)).size, tables };
}

/** Deletes all but the newest `keep` scheduled backups in DATA_DIR/backups. */
export async function pruneBackups(dataDir: string, keep: number): Promise<string[]> {
  const dir = join(dataDir, BACKUPS_DIR);
  const names = (await readdir(dir).catch(() => [])).filter((name) => BACKUP_NAME.test(name)).sort();
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const name of old) await rm(join(dir, name), { force: true });
  return old;
}

/**
 * Backs up every `everyMs` into DATA_DIR/backups and keeps the newest `keep` (`BACKUP_EVERY`,
 * `BACKUP_KEEP`). A backup still running when the next is due is not doubled. Returns the stop
 * function, which waits for a backup in progress.
 */
export function scheduleBackups(connection: pg.ClientConfig, dataDir: string, everyMs: number, keep: number): () => Promise<void> {
  let running: Promise<void> | null = null;
  const run = () => {
    if (running) return;
    const started = performance.now();
    running = backupNow(connection, dataDir)
      .then(async (result) => {
        const removed = await pruneBackups(dataDir, keep);
        const rows = Object.values(result.tables).reduce((sum, table) => sum + table.rows, 0);
        log.info({ file: result.file, bytes: result.bytes, rows, ms: Math.round(performance.now() - started), removed }, `backup written: ${result.file}`);
      })
      .catch((error: unknown) => log.error(`scheduled backup failed: ${(error as Error).message}`))
      .finally(() => (running = null));
  };
  const timer = setInterval(run, everyMs).unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
