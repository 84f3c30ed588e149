import { createHash } from 'node:crypto';
import type { Bus } from './bus.js';

/** The prefix of every Redis key of the cluster-wide budgets. */
export const BUDGET_PREFIX = 'tessera:budget:';

/** Longest part of a budget key kept as written; a longer one (an email address, a token) is hashed. */
const MAX_KEY_PART = 128;

/**
 * Where the cluster-wide budgets keep their counts (docs/cluster.md, "Budgets: per node and per
 * cluster"): the cluster's Redis, reached through the bus. While Redis cannot answer, every
 * budget falls back to its per-node bound; the log says so once, and once again when Redis
 * answers.
 */
export interface BudgetStore {
  /** This node's name. */
  readonly node: string;
  /** The nodes heard from lately, this one included: the others' counts that still count. */
  liveNodes(): string[];
  /** Runs the Lua `script` over `keys` and `args`; null when Redis cannot answer (the caller then keeps its per-node bound). */
  run(script: string, keys: string[], args: (string | number)[]): Promise<unknown>;
  /** Calls `listener` each time the bus is back after being down (what Redis held may be gone). */
  onReconnect(listener: () => void): void;
}

/** The Redis key of `key` in the budget `name`. */
export function budgetKey(name: string, key: string): string {
  const part = key.length <= MAX_KEY_PART ? key : `#${createHash('sha256').update(key).digest('hex')}`;
  return `${BUDGET_PREFIX}${name}:${part}`;
}

/**
 * The budget store of `bus`, or null on a cluster of one (its budgets stay in memory, as they
 * always were). `log` hears once that the budgets are per node while Redis cannot answer, and
 * once that they are cluster-wide again.
 */
export function budgetStore(bus: Bus, log: (message: string) => void): BudgetStore | null {
  const command = bus.command;
  if (!command) return null;
  let down = false;
  // The budgets' scripts are a few constants: each is sent whole once, then named by its SHA-1.
  const digests = new Map<string, string>();
  const evaluate = async (script: string, keys: string[], args: (string | number)[]) => {
    let digest = digests.get(script);
    if (!digest) digests.set(script, (digest = createHash('sha1').update(script).digest('hex')));
    try {
      return await command('EVALSHA', digest, keys.length, ...keys, ...args);
    } catch (error) {
      // A Redis restarted (or flushed) since forgets the script: it is sent whole again.
      if (!(error as Error).message.startsWith('NOSCRIPT')) throw error;
      return command('EVAL', script, keys.length, ...keys, ...args);
    }
  };
  return {
    node: bus.node,
    liveNodes: () => bus.liveNodes(),
    onReconnect: (listener) => bus.onReconnect(listener),
    async run(script, keys, args) {
      try {
        const answer = await evaluate(script, keys, args);
        if (down) log('budgets: Redis answers again; budgets are cluster-wide');
        down = false;
        return answer;
      } catch (error) {
        if (!down) log(`budgets: Redis cannot answer (${(error as Error).message}); budgets are per node until it does`);
        down = true;
        return null;
      }
    },
  };
}
