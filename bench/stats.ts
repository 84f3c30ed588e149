/**
 * What every benchmark shares: the `--quick` switch, the header line naming the machine and the
 * run plan, and small statistics (percentiles, min/median/max of runs).
 */
import { cpus } from 'node:os';

/** Whether `--quick` was passed: a short version of the benchmark (fewer runs, smaller cases). */
export const QUICK = process.argv.includes('--quick');

/** `full` normally, `quick` under `--quick`. */
export function pick<T>(full: T, quick: T): T {
  return QUICK ? quick : full;
}

/** The machine a benchmark runs on. */
export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  platform: string;
}

/** CPU model, logical cores and Node version of this process's machine. */
export function machine(): Machine {
  const list = cpus();
  return { cpu: list[0]?.model.trim() ?? 'unknown', cores: list.length, node: process.version, platform: `${process.platform}-${process.arch}` };
}

/** How a benchmark repeats its measurement: warm-up runs thrown away, then timed runs. */
export interface RunPlan {
  warmups: number;
  runs: number;
  [detail: string]: unknown;
}

/** Prints the first JSON line of a benchmark: its name, the machine, the run plan and whether it is the quick version. */
export function printHeader(bench: string, plan: RunPlan): void {
  console.log(JSON.stringify({ bench, case: 'machine', ...machine(), quick: QUICK, ...plan }));
}

/** Prints one figure of a benchmark as a JSON line. */
export function printRow(row: Record<string, unknown>): void {
  console.log(JSON.stringify(row));
}

/** The `p`-th percentile (0-100) of `values`, nearest rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** The median of `values` (the upper one of an even count). */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** `value` rounded to `digits` decimals, as a number for JSON output. */
export function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}

/** Min, median and max of several runs' figures, rounded, for one JSON field each. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** The spread of `values` rounded to `digits` decimals. */
export function spread(values: readonly number[], digits = 2): Spread {
  return { min: round(Math.min(...values), digits), median: round(median(values), digits), max: round(Math.max(...values), digits) };
}
