/**
 * What the batched authorisation checks (read-checks.ts, write-checks.ts) share: answering a
 * batch run as one transaction, and running it again one check at a time when one of its
 * statements failed.
 */

/** A check waiting in a batch: what it asks, and how its caller is answered. */
export interface PendingCheck<Check, Verdict> {
  check: Check;
  resolve(verdict: Verdict): void;
  reject(error: unknown): void;
}

/**
 * Whether a failed batch is run again one check at a time: one of its statements failed (a
 * policy raised for one topic), so the others may pass alone. A batch cancelled by its time
 * budget, or whose connection or server went away, is not: each of its checks fails, nothing
 * granted.
 */
export function failedInAStatement(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !/^(08|53|57|58)/.test(code);
}

/**
 * Runs the checks of `batch` in one transaction with `run` and answers each with its verdict. A
 * batch that {@link failedInAStatement} is run again one check at a time (`alone` counts each
 * transaction), so a check that fails alone fails, and only it; any other failure fails every
 * check of the batch.
 */
export async function answerBatch<Check, Verdict>(
  batch: ReadonlyArray<PendingCheck<Check, Verdict>>,
  run: (checks: Check[]) => Promise<Verdict[]>,
  alone: () => void,
): Promise<void> {
  try {
    const verdicts = await run(batch.map((pending) => pending.check));
    batch.forEach((pending, i) => pending.resolve(verdicts[i]!));
    return;
  } catch (error) {
    if (batch.length === 1 || !failedInAStatement(error)) {
      for (const pending of batch) pending.reject(error);
      return;
    }
  }
  for (const pending of batch) {
    alone();
    try {
      pending.resolve((await run([pending.check]))[0]!);
    } catch (error) {
      pending.reject(error);
    }
  }
}
