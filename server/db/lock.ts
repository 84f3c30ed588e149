import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The lock file's name inside DATA_DIR. */
export const LOCK_FILE = 'tessera.lock';

/** Thrown when another live process holds the DATA_DIR lock. */
export class DataDirLockedError extends Error {
  constructor(lockPath: string, pid: number) {
    super(`DATA_DIR is locked: ${lockPath} is held by process ${pid}; two servers on one DATA_DIR corrupt it`);
    this.name = 'DataDirLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the exclusive lock on `dataDir`: a file created with O_EXCL that holds this process id.
 * A lock left by a process that no longer runs (killed) is taken over. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new DataDirLockedError(lockPath, holder);
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`could not take the lock ${lockPath}`);
}
