/**
 * What the cases of bench:capacity share: the pinned server (one core for the server and its
 * PostgreSQL, the other for the load), its CPU and memory, its `/metrics`, and running work a
 * few at a time.
 */
import { cpus, setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestServer, type TestServer } from '../test/support/harness.js';
import { cpuSeconds, pin, pssMb, serverCpuSeconds, serverPids } from './processes.js';
import type { BotPlan } from '../test/support/load/bot.js';
import { round } from './stats.js';

/** CPU seconds of the server's Node process and of all its processes (PostgreSQL's too). */
export async function serverCpu(server: TestServer): Promise<{ node: number; all: number }> {
  const pids = await serverPids(server);
  return { node: cpuSeconds(pids[0]!), all: serverCpuSeconds(pids) };
}

/**
 * PSS of the server's processes together, MB. The kernel takes a few hundred milliseconds to total
 * a large process's pages, and this process waits for it: read it only while nothing is timed.
 */
export async function serverPss(server: TestServer): Promise<number> {
  return (await serverPids(server)).reduce((sum, pid) => sum + pssMb(pid), 0);
}

/**
 * Raises this process's priority (where allowed) so that on its core it runs before other work of
 * the machine: the load's loop delay then measures its own bots, not its neighbours. True if it could.
 */
export function prioritise(): boolean {
  try {
    setPriority(process.pid, -10);
    return true;
  } catch {
    return false;
  }
}

/**
 * The core of the server's PostgreSQL: `0`, the server's own (the default: one core holds a node
 * and its database), or `1`, the load's (`--database-core=1`): the server's core then holds its
 * Node process alone, as where the database has a machine of its own (`DATABASE_URL`), and the
 * load's core holds the database beside the bots.
 */
export const DATABASE_CORE = databaseCore(process.argv.find((arg) => arg.startsWith('--database-core='))?.slice('--database-core='.length));

function databaseCore(given: string | undefined): '0' | '1' {
  if (given === undefined || given === '0' || given === '1') return given ?? '0';
  throw new Error(`--database-core must be 0 (the server's core) or 1 (the load's), not ${given}`);
}

/** The load's own CPU (cores) and event-loop delay p99 over a window: above 50 ms, a window's latencies are partly the load's. */
export interface LoadMeter {
  load_cpu_cores: number;
  load_loop_delay_p99_ms: number;
}

/** Starts measuring this process (the load) now; `stop` ends the window of `seconds` and reads it. */
export function meterLoad(): { stop(seconds: number): LoadMeter } {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const before = process.cpuUsage();
  loop.enable();
  return {
    stop(seconds) {
      loop.disable();
      const used = process.cpuUsage(before);
      return { load_cpu_cores: round((used.user + used.system) / 1e6 / seconds, 2), load_loop_delay_p99_ms: round(loop.percentile(99) / 1e6, 1) };
    },
  };
}

/**
 * Starts a server on `dataDir` pinned to core 0 (its PostgreSQL to DATABASE_CORE), with this
 * process on core 1; `pinned` says whether it could.
 */
export async function pinnedServer(dataDir: string): Promise<{ server: TestServer; pinned: boolean }> {
  const server = await startTestServer(dataDir);
  const [node, ...database] = await serverPids(server);
  const pinned = cpus().length >= 2 && pin(node!, '0') && database.every((pid) => pin(pid, DATABASE_CORE)) && pin(process.pid, '1');
  return { server, pinned };
}

/** Runs `work` over `items`, at most `limit` at once. */
export async function inBatches<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  }));
  return results;
}

/** Samples of the server's `/metrics` (Prometheus text), by metric name and label text. */
export type Scrape = Map<string, number>;

/**
 * Reads the server's `/metrics` (from this machine, which needs no token). Reading it also starts
 * prom-client's event-loop delay histogram afresh, so the next scrape's
 * `nodejs_eventloop_lag_p99_seconds` covers the time between the two.
 */
export async function scrape(server: TestServer): Promise<Scrape> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const samples: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** Bots per group of a spread crowd. */
export const GROUP = 8;
/** Pixels between two groups' centres: three regions, so no group hears another. */
export const GROUP_GAP_PX = 3 * 1024;

/** Bot `index` of a crowd of `total` spread in groups of {@link GROUP}: its group's box, a start inside it, one in ten building every 3 s. */
export function spreadPlan(index: number, total: number, name: string): BotPlan {
  const groups = Math.ceil(total / GROUP);
  const side = Math.ceil(Math.sqrt(groups));
  const group = Math.floor(index / GROUP);
  const cx = ((group % side) - Math.floor(side / 2)) * GROUP_GAP_PX;
  const cy = (Math.floor(group / side) - Math.floor(side / 2)) * GROUP_GAP_PX;
  const box = { left: cx - 300, top: cy - 200, right: cx + 300, bottom: cy + 200 };
  return { index, name, start: { x: cx - 280 + (index % GROUP) * 70, y: cy }, box, placeEveryMs: index % 10 === 0 ? 3000 : 0, chatEveryMs: 0 };
}
