import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { processStartTime, processState } from './processes.js';

/** The lock file's name inside DATA_DIR. */
export const LOCK_FILE = 'tessera.lock';

/** Thrown when another live process holds the DATA_DIR lock. */
export class DataDirLockedError extends Error {
  constructor(lockPath: string, pid: number) {
    super(`DATA_DIR is locked: ${lockPath} is held by process ${pid}; two servers on one DATA_DIR corrupt it`);
    this.name = 'DataDirLockedError';
  }
}

/** `pid start-time` of this process, as the lock file records it. */
function identity(pid: number): string {
  return `${pid} ${processStartTime(pid) ?? ''}`.trim();
}

/**
 * True when the holder written in a lock file still runs: the pid exists, is not a zombie left
 * unreaped by its parent, and (where /proc tells) has the recorded start time, so a pid reused
 * by another program after a restart does not keep the lock.
 */
function holderAlive(recorded: string): number | null {
  const [pidText, startTime] = recorded.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  if (processState(pid) === 'gone') return null;
  const now = processStartTime(pid);
  if (startTime && now && now !== startTime) return null;
  return pid;
}

/**
 * Takes the exclusive lock on `dataDir`: a file created with O_EXCL that holds this process's
 * id and start time. A lock left by a process that no longer runs (killed, or a zombie) is taken
 * over. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, identity(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = holderAlive(readFileSync(lockPath, 'utf8'));
      if (holder !== null) throw new DataDirLockedError(lockPath, holder);
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`could not take the lock ${lockPath}`);
}
