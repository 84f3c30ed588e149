import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startRedis, type TestRedis } from './redis.js';
import { startServer, type TestServer } from './server.js';

/** Nodes of one world on one PostgreSQL and one Redis, as a test runs them. */
export interface TestCluster {
  redis: TestRedis;
  /** The nodes in start order; the first runs the embedded PostgreSQL the others use. */
  nodes: TestServer[];
  /** DATABASE_URL of the shared PostgreSQL (the first node's, on its Unix socket). */
  databaseUrl: string;
  /** Starts one more node (named `NODE_ID=node-<n>`) on the same PostgreSQL and Redis, with `env` on top. */
  addNode(env?: Record<string, string>): Promise<TestServer>;
  /** Stops every node still running (the first last), then Redis. */
  close(): Promise<void>;
}

/** DATABASE_URL of the embedded PostgreSQL a test server runs in its DATA_DIR, as its superuser on the Unix socket. */
export async function embeddedDatabaseUrl(server: Pick<TestServer, 'dataDir'>): Promise<string> {
  const password = (await readFile(join(server.dataDir, 'postgres-password'), 'utf8')).trim();
  return `postgres://postgres:${encodeURIComponent(password)}@localhost/postgres?host=${encodeURIComponent(join(server.dataDir, 'run'))}`;
}

/**
 * Starts Redis and `count` nodes (NODE_ID node-1…node-N, each with its own DATA_DIR): node-1
 * with the embedded PostgreSQL, the others on it through DATABASE_URL, all with REDIS_URL and
 * `env` on top.
 */
export async function startCluster(count: number, env: Record<string, string> = {}): Promise<TestCluster> {
  const redis = await startRedis();
  const nodes: TestServer[] = [];
  try {
    nodes.push(await startServer({ env: { REDIS_URL: redis.url, NODE_ID: 'node-1', ...env } }));
    const databaseUrl = await embeddedDatabaseUrl(nodes[0]!);
    const addNode = async (more: Record<string, string> = {}) => {
      const node = await startServer({ env: { REDIS_URL: redis.url, DATABASE_URL: databaseUrl, NODE_ID: `node-${nodes.length + 1}`, ...env, ...more } });
      nodes.push(node);
      return node;
    };
    while (nodes.length < count) await addNode();
    return {
      redis,
      nodes,
      databaseUrl,
      addNode,
      async close() {
        for (const node of nodes.slice(1).reverse()) await node.stop();
        await nodes[0]!.stop();
        await redis.close();
      },
    };
  } catch (error) {
    for (const node of nodes.reverse()) await node.stop();
    await redis.close();
    throw error;
  }
}
