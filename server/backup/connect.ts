import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type pg from 'pg';
import { CLUSTER_POINTER } from '../db/cluster.js';
import { processState } from '../db/processes.js';

/**
 * How to reach the embedded PostgreSQL that a running server started on `dataDir`, or null when
 * none runs: read from the postmaster's own `postmaster.pid` (its port, socket folder and listen
 * address), connecting as the superuser with the password file where it listens on TCP.
 */
export function runningCluster(dataDir: string): pg.ClientConfig | null {
  const pointer = join(dataDir, CLUSTER_POINTER);
  const root = existsSync(pointer) ? readFileSync(pointer, 'utf8').trim() : resolve(dataDir);
  const pidFile = join(root, 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || processState(pid) !== 'running') return null;
  const port = Number(lines[3]);
  const socketDir = lines[4]?.trim();
  const passwordFile = join(root, 'postgres-password');
  const password = existsSync(passwordFile) ? readFileSync(passwordFile, 'utf8').trim() : undefined;
  return socketDir
    ? { host: socketDir, port, user: 'postgres', database: 'postgres' }
    : { host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' };
}
