import type { Claims } from '../db/index.js';
import { joinAuthorizations, readCheckTransactions } from '../metrics.js';
import type { ReadVerdict } from './authorization.js';
import { JoinError } from './bindings.js';
import { answerBatch, type PendingCheck } from './check-batches.js';
import { JOIN_WAITED_TOO_LONG, MAX_READ_CHECKS_PER_BATCH } from './limits.js';
import type { KeyedSlots } from './slots.js';

/** Runs the read checks of `topics` for `claims` in one transaction; resolves to their verdicts, in order. */
export type RunReadChecks = (claims: Claims, topics: readonly string[]) => Promise<ReadVerdict[]>;

/**
 * Asks the read policies about `topic` (without `realtime:`) for `claims`, on behalf of a socket
 * of `address`, unless its transaction would start after `deadline` (performance.now()): then it
 * is refused with JOIN_WAITED_TOO_LONG (a {@link JoinError}) unchecked.
 */
export type ReadCheck = (claims: Claims, topic: string, address: string, deadline: number) => Promise<ReadVerdict>;

/** One check waiting in a batch: its topic (`check`), until when it is wanted, and how its caller is answered. */
interface Waiting extends PendingCheck<string, ReadVerdict> {
  deadline: number;
}

/** The checks of one caller (the same claims, from the same address) run in one transaction. */
interface Batch {
  claims: Claims;
  address: string;
  checks: Waiting[];
}

/**
 * Answers every check of `batch` with `run`'s verdicts (a check no longer wanted is refused
 * unchecked); a failed batch as {@link answerBatch} says.
 */
async function settle(batch: Batch, run: RunReadChecks): Promise<void> {
  const now = performance.now();
  for (const check of batch.checks) if (check.deadline <= now) check.reject(new JoinError(JOIN_WAITED_TOO_LONG));
  const checks = batch.checks.filter((check) => check.deadline > now);
  if (checks.length === 0) return;
  joinAuthorizations.inc({ answered_by: 'database' }, checks.length);
  readCheckTransactions.inc({ run: 'batch' });
  await answerBatch(checks, (topics) => run(batch.claims, topics), () => readCheckTransactions.inc({ run: 'alone' }));
}

/**
 * Read checks gathered per caller: the checks of the same claims from the same address that
 * arrive in one turn of the event loop, or while that caller's batch waits for its place, run
 * together in one transaction (at most MAX_READ_CHECKS_PER_BATCH; a full batch starts another).
 * A batch takes one place of its address and one of the server's in `slots`, as one check did;
 * its checks past their deadline by then are refused without asking the database.
 * Each verdict is the one the check would get alone; a batch whose statement failed is run again
 * one check at a time in the same places, so a check that fails alone fails, and only it.
 */
export function batchedReadChecks(slots: KeyedSlots, run: RunReadChecks): ReadCheck {
  const gathering = new Map<string, Batch>();

  function start(key: string, batch: Batch): void {
    setImmediate(() => {
      void slots.run(batch.address, () => {
        if (gathering.get(key) === batch) gathering.delete(key);
        return settle(batch, run);
      });
    });
  }

  return (claims, topic, address, deadline) =>
    new Promise<ReadVerdict>((resolve, reject) => {
      const key = `${address}\n${JSON.stringify(claims)}`;
      let batch = gathering.get(key);
      if (!batch) {
        gathering.set(key, (batch = { claims, address, checks: [] }));
        start(key, batch);
      }
      batch.checks.push({ check: topic, deadline, resolve, reject });
      if (batch.checks.length >= MAX_READ_CHECKS_PER_BATCH) gathering.delete(key);
    });
}
