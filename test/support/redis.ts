import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's Redis server, which `.ci/run` installs. */
export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/** A Redis server of a test, on a port of its own, keeping nothing on disk. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`, for REDIS_URL. */
  url: string;
  port: number;
  /** Stops it (SIGKILL when `crash`), keeping the port, as a restart would find it. */
  stop(crash?: boolean): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Runs redis-server on `port` in `dir` and resolves once it accepts connections. */
async function runRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  return child;
}

/** Starts a Redis server for a test (see {@link TestRedis}). */
export async function startRedis(): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = await runRedis(port, dir);
  const stop = async (crash = false) => {
    if (!child) return;
    const running = child;
    child = null;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(crash ? 'SIGKILL' : 'SIGTERM');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async restart() {
      await stop();
      child = await runRedis(port, dir);
    },
    async close() {
      await stop(true);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
