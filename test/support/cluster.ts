import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCluster as startPostgres, type Cluster as Postgres } from '../../server/db/cluster.js';
import { startRedis, type TestRedis } from './redis.js';
import { makeDataDir, removeDataDir, startServer, type TestServer } from './server.js';

/**
 * The public URL every node of a test cluster signs players in for (SITE_URL), as a balancer in
 * front of them would be: a cluster refuses to start without one. Test clients still talk to each
 * node at its own address and sign their messages for this site (`TestServer.siteUrl`).
 */
export const CLUSTER_SITE_URL = 'http://tessera.test';

/** Nodes of one world on one PostgreSQL and one Redis, as a test runs them. */
export interface TestCluster {
  redis: TestRedis;
  /** The nodes in start order; the first runs the embedded PostgreSQL the others use (unless started at once). */
  nodes: TestServer[];
  /** DATABASE_URL of the shared PostgreSQL. */
  databaseUrl: string;
  /** Starts one more node (named `NODE_ID=node-<n>`) on the same PostgreSQL and Redis, with `env` on top. */
  addNode(env?: Record<string, string>): Promise<TestServer>;
  /** Stops every node still running (the first last), then the PostgreSQL of its own if any, then Redis. */
  close(): Promise<void>;
}

/** How {@link startCluster} starts its nodes. */
export interface ClusterStart {
  /**
   * Start every node at the same time, all through DATABASE_URL on a PostgreSQL of the cluster's
   * own (no node runs it), as nodes of a real deployment may all start together.
   */
  atOnce?: boolean;
}

/** DATABASE_URL of the embedded PostgreSQL a test server runs in its DATA_DIR, as its superuser on the Unix socket. */
export async function embeddedDatabaseUrl(server: Pick<TestServer, 'dataDir'>): Promise<string> {
  const password = (await readFile(join(server.dataDir, 'postgres-password'), 'utf8')).trim();
  return `postgres://postgres:${encodeURIComponent(password)}@localhost/postgres?host=${encodeURIComponent(join(server.dataDir, 'run'))}`;
}

/** A PostgreSQL of the cluster's own in a new folder: its DATABASE_URL, and how to stop it and remove the folder. */
async function sharedPostgres(): Promise<{ databaseUrl: string; stop(): Promise<void> }> {
  const dir = await makeDataDir();
  let postgres: Postgres;
  try {
    postgres = await startPostgres(dir);
  } catch (error) {
    await removeDataDir(dir);
    throw error;
  }
  const { host, port, user, password, database } = postgres.connection;
  const databaseUrl = `postgres://${user}:${encodeURIComponent(password ?? '')}@localhost:${port}/${database}?host=${encodeURIComponent(host)}`;
  return {
    databaseUrl,
    async stop() {
      await postgres.stop();
      await removeDataDir(dir);
    },
  };
}

/**
 * Starts Redis and `count` nodes (NODE_ID node-1…node-N, each with its own DATA_DIR, all with
 * REDIS_URL, SITE_URL {@link CLUSTER_SITE_URL} and `env` on top): one after the other, node-1
 * with the embedded PostgreSQL and the others on it through DATABASE_URL, or (`atOnce`) all at
 * the same time on a PostgreSQL of the cluster's own.
 */
export async function startCluster(count: number, env: Record<string, string> = {}, start: ClusterStart = {}): Promise<TestCluster> {
  const redis = await startRedis();
  const nodes: TestServer[] = [];
  let postgres: Awaited<ReturnType<typeof sharedPostgres>> | null = null;
  const stopAll = async () => {
    for (const node of nodes.slice(1).reverse()) await node.stop();
    await nodes[0]?.stop();
    await postgres?.stop();
    await redis.close();
  };
  try {
    const nodeEnv = (index: number) => ({ REDIS_URL: redis.url, SITE_URL: CLUSTER_SITE_URL, NODE_ID: `node-${index}`, ...env });
    let databaseUrl: string;
    if (start.atOnce) {
      postgres = await sharedPostgres();
      databaseUrl = postgres.databaseUrl;
      const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => startServer({ env: { ...nodeEnv(i + 1), DATABASE_URL: databaseUrl } })));
      for (const result of started) if (result.status === 'fulfilled') nodes.push(result.value);
      const failed = started.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    } else {
      nodes.push(await startServer({ env: nodeEnv(1) }));
      databaseUrl = await embeddedDatabaseUrl(nodes[0]!);
    }
    const addNode = async (more: Record<string, string> = {}) => {
      const node = await startServer({ env: { ...nodeEnv(nodes.length + 1), DATABASE_URL: databaseUrl, ...more } });
      nodes.push(node);
      return node;
    };
    while (nodes.length < count) await addNode();
    return { redis, nodes, databaseUrl, addNode, close: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
