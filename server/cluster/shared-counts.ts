import { BUDGET_PREFIX, type BudgetStore } from './budget-store.js';

/** How often a node writes its counts to Redis again, which also keeps them from expiring. */
export const COUNTS_REFRESH_MS = 5000;

/** How long a node's counts outlive its last refresh: a node dead this long counts nothing, even for nodes that still believe it alive. */
export const COUNTS_TTL_MS = 15_000;

/**
 * Counts `KEYS[1..n-1]` (the hashes of the live nodes) hold for ARGV[1], against the cap
 * ARGV[2]: under it, adds one to this node's hash (`KEYS[n]`) and answers the new total; at it,
 * answers -1 and adds nothing. One script, so two nodes never both take the last place.
 */
const ADD_WITHIN = `
local total = 0
for _, key in ipairs(KEYS) do total = total + tonumber(redis.call('HGET', key, ARGV[1]) or '0') end
if total >= tonumber(ARGV[2]) then return -1 end
redis.call('HINCRBY', KEYS[#KEYS], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[#KEYS], ARGV[3])
return total + 1`;

/** Takes one from this node's count (KEYS[1]) of each of ARGV[1..] (a field once for each one given back). */
const REMOVE = `
for _, field in ipairs(ARGV) do
  if redis.call('HINCRBY', KEYS[1], field, -1) <= 0 then redis.call('HDEL', KEYS[1], field) end
end
return 0`;

/** Replaces this node's hash (KEYS[1]) with its counts (ARGV[2..]: field, count, ...), kept ARGV[1] ms. */
const REPLACE = `
redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if #ARGV > 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 0`;

/**
 * Counts of things held at once (sockets of an address, requests of a caller) summed over the
 * live nodes of the cluster. Each node keeps its own counts in memory and mirrors them in its
 * own Redis hash, whose expiry it refreshes while it lives: a dead node's counts stop counting
 * once the bus counts it down (6 s) or its hash expires ({@link COUNTS_TTL_MS}).
 */
export interface SharedCounts {
  /** Whether other nodes count too (a place may be given back elsewhere), false on a cluster of one. */
  readonly clustered: boolean;
  /**
   * Counts one more of `field` here, within `max` over the cluster: resolves true when taken,
   * false (counting nothing) when the cluster holds `max` already. While Redis cannot answer,
   * only this node's count is held against `max`.
   */
  add(field: string, max: number): Promise<boolean>;
  /** Counts one less of `field` here. */
  remove(field: string): void;
  /** Stops refreshing. */
  stop(): void;
}

/** Counts kept by this node alone: a cluster of one, where {@link SharedCounts.add} is this node's count against `max`. */
function createLocalCounts(): SharedCounts {
  const counts = new Map<string, number>();
  return {
    clustered: false,
    async add(field, max) {
      const count = counts.get(field) ?? 0;
      if (count >= max) return false;
      counts.set(field, count + 1);
      return true;
    },
    remove(field) {
      const count = counts.get(field) ?? 0;
      if (count > 1) counts.set(field, count - 1);
      else counts.delete(field);
    },
    stop() {},
  };
}

/** The hash of `node`'s counts of `name`. */
function nodeKey(name: string, node: string): string {
  return `${BUDGET_PREFIX}${name}@${node}`;
}

/** The {@link SharedCounts} named `name` in `store`, or {@link createLocalCounts} without a store. */
export function createSharedCounts(store: BudgetStore | null, name: string): SharedCounts {
  if (!store) return createLocalCounts();
  const counts = new Map<string, number>();
  const own = nodeKey(name, store.node);
  // Keys of the other live nodes, then this node's: the scripts write the last one.
  const keys = () => [...store.liveNodes().filter((node) => node !== store.node).map((node) => nodeKey(name, node)), own];
  const change = (field: string, by: number) => {
    const count = (counts.get(field) ?? 0) + by;
    if (count > 0) counts.set(field, count);
    else counts.delete(field);
  };
  // Places given back in one turn of the event loop go to Redis in one script; an add sends them
  // first, so Redis never counts a place this node has already given back.
  let givenBack: string[] = [];
  const sendGivenBack = () => {
    if (givenBack.length === 0) return;
    void store.run(REMOVE, [own], givenBack);
    givenBack = [];
  };
  // Replaces made while an add was answered may hold its place: a refused add then takes it back.
  let replaces = 0;
  const replace = () => {
    replaces += 1;
    // The hash is written as this node counts now: places given back and not yet sent are in it.
    givenBack = [];
    void store.run(REPLACE, [own], [COUNTS_TTL_MS, ...[...counts].flat()]);
  };
  // At once too: a node restarted under the same name drops what its last life left.
  replace();
  const timer = setInterval(replace, COUNTS_REFRESH_MS);
  timer.unref();
  store.onReconnect(replace);
  return {
    clustered: true,
    async add(field, max) {
      if ((counts.get(field) ?? 0) >= max) return false;
      sendGivenBack();
      change(field, 1);
      const replacesBefore = replaces;
      const total = await store.run(ADD_WITHIN, keys(), [field, max, COUNTS_TTL_MS]);
      if (total !== -1) return true;
      change(field, -1);
      if (replaces !== replacesBefore) void store.run(REMOVE, [own], [field]);
      return false;
    },
    remove(field) {
      change(field, -1);
      if (givenBack.length === 0) setImmediate(sendGivenBack);
      givenBack.push(field);
    },
    stop: () => clearInterval(timer),
  };
}
