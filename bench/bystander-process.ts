/**
 * Starting the bystander of bench/bystander.ts: a process of its own on the load's core, run
 * before it there, signed in before anything is measured.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import type { TestServer } from '../test/support/harness.js';
import { pin } from './processes.js';

/** A bystander process started and signed in, waiting for `start`; see bench/bystander.ts. */
export interface Bystander {
  /** Starts its reads for the measured seconds; resolves to their round trips (ms). */
  start(): Promise<number[]>;
}

/**
 * Starts `bench/bystander.ts` for `seconds` of reads in a process of its own on the load's core
 * and waits until it has signed in: its start-up (a second of CPU, ahead of the load) is over
 * before anything is measured.
 */
export async function startBystander(server: TestServer, seconds: number): Promise<Bystander> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bystander.ts', server.url, server.anonKey, String(seconds)], { stdio: ['pipe', 'pipe', 'inherit'] });
  pin(child.pid!, '1');
  // The probe measures the server, not its wait for the load's busy core: it runs first there.
  try {
    setPriority(child.pid!, -10);
  } catch {
    // Not allowed here: it then shares the load's core as any process does.
  }
  let output = '';
  const exited = new Promise<number[]>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(output.slice(output.indexOf('\n') + 1)) as number[]) : reject(new Error(`bystander exited with ${code}`)))),
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.startsWith('ready\n')) resolve();
    });
    exited.catch(reject);
  });
  await boundedBy(ready, BYSTANDER_SLACK_MS, 'the bystander did not sign in', () => child.kill('SIGKILL'));
  return {
    start() {
      child.stdin!.end('go\n');
      return boundedBy(exited, seconds * 1000 + BYSTANDER_SLACK_MS, 'the bystander did not finish its reads', () => child.kill('SIGKILL'));
    },
  };
}

/** Milliseconds the bystander may take to sign in, and past its measured seconds to finish: a server that stopped answering fails the step, never hangs it. */
const BYSTANDER_SLACK_MS = 120_000;

/** `promise`, or a rejection with `message` (after `onTimeout`) if it has not settled within `ms`. */
function boundedBy<T>(promise: Promise<T>, ms: number, message: string, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${message} within ${ms / 1000} s`));
    }, ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
