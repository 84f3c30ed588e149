/**
 * Starts the built server (`dist/server.mjs`) as a child process for tests and benchmarks, each
 * on its own DATA_DIR, and stops it so that nothing it started keeps running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { processState, waitGone } from '../../server/db/processes.js';

/** The built server the tests start; TESSERA_SERVER overrides `dist/server.mjs`. */
export const SERVER_ENTRY = process.env.TESSERA_SERVER ?? 'dist/server.mjs';

/**
 * Web3 sign-ins per 5 minutes the test and bench servers allow from one address: suites and
 * load tools sign in hundreds of fresh wallets from 127.0.0.1, far over the default of 30.
 */
export const TEST_RATE_LIMIT_WEB3 = '100000';

/**
 * The other per-address limits of the test and bench servers, for the same reason: every
 * sign-in and refresh of a suite is a `/token` request from 127.0.0.1, every player reads its
 * user, and the crowd bench holds 1,000 sockets. Suites that test a limit set it lower.
 */
export const TEST_ADDRESS_LIMITS: Record<string, string> = {
  RATE_LIMIT_TOKEN_REFRESH: '1000000',
  RATE_LIMIT_AUTH_REQUESTS: '1000000',
  REALTIME_MAX_SOCKETS_PER_IP: '100000',
};

/** A running server child process. */
export interface TestServer {
  /** The address it printed in its start line. */
  url: string;
  anonKey: string;
  /** The SITE_URL it was started with, which sign-in messages must name; unset: {@link url}. */
  siteUrl?: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /**
   * SIGTERM, waits for the exit and resolves with its code; a DATA_DIR the server was started
   * without (a temporary one) is then removed with {@link removeDataDir}.
   */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash), then waits for the exit. The DATA_DIR and any PostgreSQL in it stay. */
  kill(): Promise<void>;
}

/** What {@link startServer} runs. */
export interface StartOptions {
  /** DATA_DIR to use and keep; a new temporary one, removed by `stop()`, when not given. */
  dataDir?: string;
  /** Variables set on top of PORT=0, DATA_DIR, RATE_LIMIT_WEB3 and {@link TEST_ADDRESS_LIMITS} (e.g. PORT, SITE_URL). */
  env?: Record<string, string>;
  /** The server script; {@link SERVER_ENTRY} when not given. */
  entry?: string;
}

/** A fresh temporary DATA_DIR; remove it with {@link removeDataDir}. */
export function makeDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'tessera-test-'));
}

/** The pid of the PostgreSQL postmaster recorded in `dataDir`, or null when none is recorded. */
export async function postmasterPid(dataDir: string): Promise<number | null> {
  const text = await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(text.split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Deletes a DATA_DIR. A PostgreSQL still running in it (left by a server a test killed) is
 * stopped first with an immediate shutdown, so nothing outlives the test.
 */
export async function removeDataDir(dir: string): Promise<void> {
  const pid = await postmasterPid(dir);
  if (pid !== null && processState(pid) === 'running') {
    process.kill(pid, 'SIGQUIT');
    await waitGone(pid, 5000);
  }
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
}

/**
 * Runs `node <entry>` with PORT=0, DATA_DIR, RATE_LIMIT_WEB3={@link TEST_RATE_LIMIT_WEB3},
 * {@link TEST_ADDRESS_LIMITS} and `env` on top, and resolves once it printed `listening on <url>`. Rejects with the output if it
 * exits first (a temporary DATA_DIR is then removed). `SERVER_NODE_ARGS` in this process's
 * environment adds options to that `node` (`--cpu-prof --cpu-prof-dir=/tmp/prof` profiles a bench's server).
 */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await makeDataDir());
  const nodeArgs = process.env.SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, options.entry ?? SERVER_ENTRY], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, RATE_LIMIT_WEB3: TEST_RATE_LIMIT_WEB3, ...TEST_ADDRESS_LIMITS, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const removeOwnDataDir = () => (ownDataDir ? removeDataDir(dataDir) : Promise.resolve());
  let listening = false;
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(log);
      if (match) {
        listening = true;
        child.stdout!.off('data', onData);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    void exited.then(async (code) => {
      if (listening) return;
      await removeOwnDataDir();
      reject(new Error(`server exited with ${code}: ${log}`));
    });
  });
  const config = (await (await fetch(`${url}/config.json`)).json()) as { supabaseAnonKey: string };
  return {
    url,
    anonKey: config.supabaseAnonKey,
    siteUrl: options.env?.SITE_URL,
    dataDir,
    child,
    output: () => log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      await removeOwnDataDir();
      return code;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The service_role API key the server wrote to its DATA_DIR (it bypasses row level security: for set-up and checks only). */
export async function readServiceRoleKey(server: Pick<TestServer, 'dataDir'>): Promise<string> {
  return (await readFile(join(server.dataDir, 'service_role.key'), 'utf8')).trim();
}

/** How the database owner reaches the PostgreSQL of a server started on `server.dataDir` (its socket and password). */
export async function operatorConfig(server: Pick<TestServer, 'dataDir'>): Promise<pg.ClientConfig> {
  const password = (await readFile(join(server.dataDir, 'postgres-password'), 'utf8')).trim();
  return { host: join(server.dataDir, 'run'), port: 5432, user: 'postgres', password, database: 'postgres' };
}

/**
 * A `pg` client connected as the database superuser to the PostgreSQL that `server` runs on its
 * Unix socket in DATA_DIR/run: for tests that set up what only an operator can (aging a row,
 * reading server state). End it before stopping the server.
 */
export async function connectAsOperator(server: Pick<TestServer, 'dataDir'>): Promise<pg.Client> {
  const client = new pg.Client(await operatorConfig(server));
  await client.connect();
  return client;
}

/**
 * The token-signing secret (base64url) the server's nodes share, read from auth.jwt_secret in
 * the PostgreSQL it runs in DATA_DIR: for tests that forge tokens or look for the secret in logs.
 */
export async function readJwtSecret(server: Pick<TestServer, 'dataDir'>): Promise<string> {
  const operator = await connectAsOperator(server);
  try {
    const { rows } = await operator.query<{ secret: string }>('select secret from auth.jwt_secret');
    return rows[0]!.secret;
  } finally {
    await operator.end();
  }
}
