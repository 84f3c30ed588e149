/**
 * The processes of a running server as benchmarks see them: Node, the PostgreSQL postmaster and
 * every PostgreSQL process under it, with their CPU time and proportional memory (PSS, which
 * shares PostgreSQL's shared buffers out fairly instead of counting them once per process).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { TestServer } from '../test/support/server.js';
import { postmasterPid } from '../test/support/server.js';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces); empty when gone. */
function statFields(pid: number): string[] {
  const stat = read(`/proc/${pid}/stat`);
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : [];
}

/** Busy and total clock ticks of core `core` since boot, from /proc/stat (every process of the machine). */
export function coreTicks(core: number): { busy: number; total: number } {
  const line = read('/proc/stat').split('\n').find((row) => row.startsWith(`cpu${core} `));
  if (!line) return { busy: 0, total: 0 };
  // user nice system idle iowait irq softirq steal: idle and iowait are the idle ones.
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((sum, tick) => sum + tick, 0);
  return { busy: total - ticks[3]! - ticks[4]!, total };
}

/** The server's pids: Node first, then the postmaster and its children. */
export async function serverPids(server: Pick<TestServer, 'child' | 'dataDir'>): Promise<number[]> {
  const pids = [server.child.pid!];
  const postmaster = await postmasterPid(server.dataDir);
  if (postmaster === null) return pids;
  pids.push(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && Number(statFields(Number(entry))[1]) === postmaster) pids.push(Number(entry));
  }
  return pids;
}

/** CPU seconds (user + system) `pid` has used; 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return fields.length === 0 ? 0 : (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds (user + system) of the children `pid` has reaped: PostgreSQL backends that ended count here, under the postmaster; 0 when gone. */
function reapedCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return fields.length === 0 ? 0 : (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

/**
 * CPU seconds a PostgreSQL server has used, given its postmaster first and then its processes:
 * each live process's, and those of the processes that ended (a connection closed, an autovacuum
 * worker done), which the postmaster reaped. Summing the live processes alone would lose, across
 * a window, the whole time of every process that ended within it.
 */
export function postgresCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) + (pids[0] === undefined ? 0 : reapedCpuSeconds(pids[0]));
}

/** CPU seconds a server has used, given its {@link serverPids}: Node's (with its own reaped children) and its PostgreSQL's ({@link postgresCpuSeconds}). */
export function serverCpuSeconds(pids: readonly number[]): number {
  return cpuSeconds(pids[0]!) + reapedCpuSeconds(pids[0]!) + postgresCpuSeconds(pids.slice(1));
}

/** Proportional set size of `pid` in MB; 0 when it is gone. */
export function pssMb(pid: number): number {
  return Number(/^Pss:\s+(\d+) kB/m.exec(read(`/proc/${pid}/smaps_rollup`))?.[1] ?? 0) / 1024;
}

/** Pins `pid` and all its threads to `cores` (a taskset list); false where taskset is missing. */
export function pin(pid: number, cores: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
