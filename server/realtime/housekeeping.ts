import type { Database } from '../db/index.js';
import { guarded } from './guard.js';
import { MESSAGE_PRUNE_MS, SHED_REPORT_MS } from './limits.js';
import type { KeyedBuckets } from './limits.js';
import { pruneMessages } from './messages.js';
import { broadcastsShed } from './wire.js';

/** How often the sender and address budgets that are full again are forgotten. */
const BUDGET_SWEEP_MS = 10_000;

/** The service's periodic chores, stopped together. */
export interface Housekeeping {
  /** Stops every chore; resolves once a removal of old messages under way is done. */
  stop(): Promise<void>;
}

/**
 * Starts the chores of a running Realtime service: removing old stored messages (at once, then
 * every MESSAGE_PRUNE_MS), forgetting full `budgets`, and telling `log` when sockets start
 * shedding broadcasts (within a second, then at most every SHED_REPORT_MS while it goes on).
 */
export function startHousekeeping(db: Database, budgets: KeyedBuckets[], log: (message: string) => void): Housekeeping {
  let pruning: Promise<void> = Promise.resolve();
  const prune = () => {
    pruning = pruneMessages(db)
      .then(() => undefined)
      .catch((error: unknown) => log(`realtime: removing old messages failed: ${(error as Error).message}`));
  };
  prune();
  const pruner = setInterval(prune, MESSAGE_PRUNE_MS).unref();
  const sweep = setInterval(guarded('the budget sweep', () => {
    for (const budget of budgets) budget.forgetFull();
  }), BUDGET_SWEEP_MS).unref();
  let shedReported = broadcastsShed();
  let shedReportedAt = -Infinity;
  const shedWatch = setInterval(guarded('the shed report', () => {
    const now = performance.now();
    const total = broadcastsShed();
    if (total === shedReported || now - shedReportedAt < SHED_REPORT_MS) return;
    log(`realtime: shed ${total - shedReported} broadcasts: sockets behind kept only the newest of each sender's stream`);
    shedReported = total;
    shedReportedAt = now;
  }), 1000).unref();
  return {
    stop() {
      clearInterval(sweep);
      clearInterval(pruner);
      clearInterval(shedWatch);
      return pruning;
    },
  };
}
