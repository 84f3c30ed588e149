import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { startCluster, type TestCluster } from '../../support/cluster.js';
import { metricValue } from '../../support/metrics.js';
import { waitFor } from '../../support/wait.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startCluster(2);
});

test.after(async () => {
  await cluster?.close();
});

test('each node of a cluster names Redis in its readiness and its name on its metrics', async () => {
  for (const [index, node] of cluster.nodes.entries()) {
    const ready = (await (await fetch(`${node.url}/readyz`)).json()) as { status: string; checks: Record<string, string> };
    assert.equal(ready, { status: 'ready', checks: { database: 'ok', migrations: 'ok', realtime: 'ok', redis: 'ok' } });
    const metrics = await (await fetch(`${node.url}/metrics`)).text();
    assert.match(metrics, `tessera_bus_messages_total{direction="out",node="node-${index + 1}"}`);
  }
});

test('a node whose Redis is gone is not ready, and is ready again once Redis is back', async () => {
  await cluster.redis.stop();
  const node = cluster.nodes[1]!;
  const waitReadiness = async (want: number) => {
    for (let i = 0; i < 100; i += 1) {
      const res = await fetch(`${node.url}/readyz`);
      const body = (await res.json()) as { checks: Record<string, string> };
      if (res.status === want) return body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`readiness never answered ${want}`);
  };
  const down = await waitReadiness(503);
  assert.match(down.checks.redis!, /^unreachable/);
  await cluster.redis.restart();
  const up = await waitReadiness(200);
  assert.is(up.checks.redis, 'ok');
});

/** The bus messages `node` has read from the other nodes. */
async function messagesIn(node: { url: string }): Promise<number> {
  return (await metricValue(node, 'tessera_bus_messages_total{direction="in"}')) ?? 0;
}

test('a node reads what the other nodes publish and drops its own envelopes, which Redis hands back, unread', async () => {
  const node = cluster.nodes[0]!;
  const publisher = new Redis(cluster.redis.url);
  try {
    const before = await messagesIn(node);
    const broadcast = (from: string, count: number) =>
      JSON.stringify({ n: from, t: Date.now(), m: Array.from({ length: count }, () => ({ topic: 'realtime:nobody', private: false, key: 'k', event: 'e', payload: {} })) });
    // Redis delivers one connection's messages in order: once the second is counted, the first was read or dropped.
    await publisher.publish('tessera:broadcast', broadcast('node-1', 500));
    await publisher.publish('tessera:broadcast', broadcast('node-9', 3));
    await waitFor(async () => (await messagesIn(node)) >= before + 3, { message: 'the other node\'s envelope counted' });
    const read = (await messagesIn(node)) - before;
    assert.ok(read >= 3 && read < 500, `read ${read}`);
  } finally {
    publisher.disconnect();
  }
});

test.run();
