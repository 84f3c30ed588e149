import { writeCheckTransactions, writeChecks } from '../metrics.js';
import type { WriteCheck } from './authorization.js';
import { MAX_WRITE_CHECKS_PER_ADDRESS_IN_BATCH, MAX_WRITE_CHECKS_PER_BATCH } from './limits.js';
import { answerBatch, type PendingCheck } from './check-batches.js';
import type { KeyedSlots } from './slots.js';

/** Runs `checks` (of any callers) in one transaction; resolves to their verdicts, in order. */
export type RunWriteChecks = (checks: readonly WriteCheck[]) => Promise<boolean[]>;

/** Asks the write policies whether `check`'s caller, on a socket of `address`, may write; resolves to the verdict. */
export type WriteCheckOf = (check: WriteCheck, address: string) => Promise<boolean>;

/** One check waiting for a batch, and how its caller is answered. */
type Waiting = PendingCheck<WriteCheck, boolean>;

/** Answers every check of `batch` with `run`'s verdicts; a failed batch as {@link answerBatch} says. */
async function settle(batch: Waiting[], run: RunWriteChecks): Promise<void> {
  writeChecks.inc(batch.length);
  writeCheckTransactions.inc({ run: 'batch' });
  await answerBatch(batch, run, () => writeCheckTransactions.inc({ run: 'alone' }));
}

/**
 * Write checks gathered over callers: the checks that arrive in one turn of the event loop, or
 * while a batch waits for its place, run together in one transaction of at most
 * MAX_WRITE_CHECKS_PER_BATCH, each under its own caller's claims. A batch takes one of the
 * server's places in `slots` (not an address's: it holds several), and at most
 * MAX_WRITE_CHECKS_PER_ADDRESS_IN_BATCH checks of one address, taken in turn over the addresses
 * waiting, so an address with many sockets sending fills no batch while others wait. At most one
 * batch waits for a place at a time; the checks arriving meanwhile join it. Each verdict is the
 * one the check would get alone; a batch whose statement failed is run again one check at a time
 * in the same place, so a check that fails alone fails, and only it.
 */
export function batchedWriteChecks(slots: KeyedSlots, run: RunWriteChecks): WriteCheckOf {
  /** The checks waiting, by address, in the order the addresses take their turns. */
  const waiting = new Map<string, Waiting[]>();
  let waitingCount = 0;
  let batchWaiting = false;

  /** The next batch: up to the per-address share of each address in turn; an address left with checks goes to the back. */
  function takeBatch(): Waiting[] {
    const batch: Waiting[] = [];
    for (const address of [...waiting.keys()]) {
      const room = MAX_WRITE_CHECKS_PER_BATCH - batch.length;
      if (room === 0) break;
      const queue = waiting.get(address)!;
      batch.push(...queue.splice(0, Math.min(room, MAX_WRITE_CHECKS_PER_ADDRESS_IN_BATCH)));
      waiting.delete(address);
      if (queue.length > 0) waiting.set(address, queue);
    }
    waitingCount -= batch.length;
    return batch;
  }

  function startBatch(): void {
    if (batchWaiting || waitingCount === 0) return;
    batchWaiting = true;
    setImmediate(() => {
      void slots.runShared(() => {
        batchWaiting = false;
        const batch = takeBatch();
        startBatch();
        return settle(batch, run);
      });
    });
  }

  return (check, address) =>
    new Promise<boolean>((resolve, reject) => {
      const queue = waiting.get(address);
      if (queue) queue.push({ check, resolve, reject });
      else waiting.set(address, [{ check, resolve, reject }]);
      waitingCount++;
      startBatch();
    });
}
