import { budgetKey, type BudgetStore } from './budget-store.js';

/**
 * How often a node tells the cluster what each key of a shared rate spent here, and hears what
 * the other nodes spent: the lag within which a key spread over nodes can overshoot.
 */
export const RECONCILE_MS = 100;

/** How long Redis keeps a key's running total after the last node that tracks it stops reconciling. */
const TOTAL_TTL_MS = 10_000;

/** What a shared rate needs of the node's own token buckets (server/realtime/limits.ts KeyedBuckets). */
export interface SpendingBuckets {
  /** Every key with a bucket here and what it spent since the last call (0 for none); the spends restart at 0. */
  drainSpent(): Map<string, number>;
  /** Takes `count` tokens from `key`'s bucket whatever it holds, down to one second of debt; nothing without a bucket. */
  debit(key: string, count: number): void;
}

/**
 * Adds each key's spend here to its running total, refreshes the total's expiry and answers the
 * totals, in one round trip for all the keys of a turn.
 */
const ADD_SPENT = `
local totals = {}
for i, key in ipairs(KEYS) do
  totals[i] = redis.call('INCRBY', key, ARGV[i + 1])
  redis.call('PEXPIRE', key, ARGV[1])
end
return totals`;

/** What this node knows of one key's running total: its own part, and the others' part already debited. */
interface Tracked {
  own: number;
  others: number;
}

/**
 * Makes `buckets` (one token bucket per key on this node) one budget over the cluster: every
 * RECONCILE_MS this node adds what each key spent here to the key's running total in Redis and
 * debits from its own bucket what the other nodes spent meanwhile. A pose never waits for Redis.
 * A key used on one node only is never debited (its bound is exactly the node's). Spread over N
 * nodes, a key gets each node's full bucket once, then the bucket's rate over the cluster plus
 * what the others spend within one reconcile lag. While Redis cannot answer, each node's bucket
 * is its own budget. Returns the stop.
 */
export function shareRates(store: BudgetStore, name: string, buckets: SpendingBuckets): () => void {
  let tracked = new Map<string, Tracked>();
  let running = false;

  async function reconcile(): Promise<void> {
    const spent = [...buckets.drainSpent()];
    if (spent.length === 0) return void tracked.clear();
    const totals = (await store.run(ADD_SPENT, spent.map(([key]) => budgetKey(name, key)), [TOTAL_TTL_MS, ...spent.map(([, count]) => count)])) as number[] | null;
    if (!totals) return void tracked.clear();
    const next = new Map<string, Tracked>();
    spent.forEach(([key, count], i) => next.set(key, settle(key, count, totals[i]!, tracked.get(key))));
    tracked = next;
  }

  /** The key's new state once its total is known; the others' new spend is debited. */
  function settle(key: string, count: number, total: number, known: Tracked | undefined): Tracked {
    // First heard here, or Redis lost the total (restarted): start counting from now.
    if (!known || total < known.own + count + known.others) return { own: count, others: total - count };
    const own = known.own + count;
    const others = total - own;
    if (others > known.others) buckets.debit(key, others - known.others);
    return { own, others };
  }

  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void reconcile().finally(() => (running = false));
  }, RECONCILE_MS);
  timer.unref();
  return () => clearInterval(timer);
}
