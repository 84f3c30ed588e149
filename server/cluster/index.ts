import { labelMetricsWithNode } from '../metrics.js';
import { soloBus } from './bus.js';
import type { Bus } from './bus.js';
import { connectBus, defaultNodeName } from './redis-bus.js';

export type { Bus } from './bus.js';

/**
 * Joins the cluster on the Redis at `redisUrl` as `nodeId` (a generated name when not given), or
 * makes a cluster of one without `redisUrl`; every metric is labelled with the node's name.
 * Rejects when Redis cannot be reached within REDIS_START_TIMEOUT_MS.
 */
export async function joinCluster(redisUrl: string | undefined, nodeId: string | undefined, log: (message: string) => void): Promise<Bus> {
  const node = nodeId ?? defaultNodeName();
  labelMetricsWithNode(node);
  return redisUrl ? connectBus(redisUrl, node, log) : soloBus(node);
}
