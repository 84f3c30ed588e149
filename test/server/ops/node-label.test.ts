/**
 * Every series of `/metrics` carries the node that reports it (`NODE_ID`), prom-client's default
 * process and Node.js metrics as much as the game's, so that one Prometheus scraping every node
 * of a cluster keeps their series apart.
 */
import { hostname } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTestServer } from '../../support/harness.js';

/** Sample lines of an exposition (comments and blank lines left out). */
const samples = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

test('every series of /metrics carries the node named by NODE_ID, defaults and histogram buckets included', async () => {
  const server = await startTestServer(undefined, { NODE_ID: 'node-7' });
  try {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    // The parser checks the exposition; the sample lines are read as written (it drops a histogram's labels).
    const names = parsePrometheusTextFormat(text).map((family) => family.name);
    for (const name of ['process_cpu_user_seconds_total', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds', 'tessera_realtime_connections', 'tessera_rest_request_duration_seconds', 'tessera_bus_messages_total']) {
      assert.ok(names.includes(name), `${name} is exposed`);
    }
    const lines = samples(text);
    assert.ok(lines.length > 100, `${lines.length} samples`);
    assert.equal(lines.filter((line) => !/[{,]node="node-7"[,}]/.test(line)), [], 'sample lines without the node');
    assert.match(text, /^nodejs_gc_duration_seconds_bucket\{le="0\.001",node="node-7",kind="[a-z]+"\} /m);
  } finally {
    await server.stop();
  }
});

test('without NODE_ID a node names itself after its host and process', async () => {
  const server = await startTestServer();
  try {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const node = /^process_cpu_user_seconds_total\{node="([^"]+)"\} /m.exec(text)?.[1];
    assert.match(String(node), new RegExp(`^${hostname()}-${server.child.pid}-[0-9a-f]{6}$`));
    assert.equal(samples(text).filter((line) => !line.includes(`node="${node}"`)), [], 'sample lines without the node');
  } finally {
    await server.stop();
  }
});

test.run();
