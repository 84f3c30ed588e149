import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startCluster, type TestCluster } from '../../support/cluster.js';

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

test.run();
