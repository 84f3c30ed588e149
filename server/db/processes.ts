import { readFileSync } from 'node:fs';

/**
 * What can be told about a process id: `running`, `gone` (no such process, or a zombie that
 * nobody reaped: it holds no files, no memory and no sockets), or `running` when the platform
 * cannot tell more than that the pid exists.
 */
export type ProcessState = 'running' | 'gone';

function procStat(pid: number): string[] | null {
  try {
    // Fields after the command name, which is in parentheses and may contain spaces.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The state of `pid`. A zombie (`Z`) or dead (`X`) process counts as gone. */
export function processState(pid: number): ProcessState {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return 'gone';
  }
  const stat = procStat(pid);
  if (stat && (stat[0] === 'Z' || stat[0] === 'X')) return 'gone';
  return 'running';
}

/**
 * The start time of `pid` in clock ticks since boot (Linux), or null where /proc is missing.
 * Together with the pid it names one process: a pid reused after a restart has another start time.
 */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

/** The command line of `pid` (Linux), or null where it cannot be read. */
export function processCommand(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return null;
  }
}

/** Resolves once `pid` is gone or `timeoutMs` passed; true when it is gone. */
export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processState(pid) === 'running') {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
