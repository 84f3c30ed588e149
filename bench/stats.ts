/** Small statistics shared by the benchmarks. */

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
