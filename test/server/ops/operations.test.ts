import { metricSamples, metricValue } from '../../support/metrics.js';
import { execFileSync, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { sleep, waitFor } from '../../support/wait.js';
import { freePort } from '../../../server/db/cluster.js';
import { createTestWallet, makeDataDir, postmasterPid, removeDataDir, SERVER_ENTRY, signInPlayer, startTestServer, type TestServer } from '../../support/harness.js';
import { accessToken, subscribeChannel } from '../../support/live.js';
import { readJwtSecret, readServiceRoleKey } from '../../support/server.js';
import { enterAtSpawn, playerAtSpawn } from '../../support/rules.js';
import { postWeb3, rawRequest, signedGrant } from '../../support/web3-grant.js';

/**
 * Scrapes `/metrics`, checks it with a Prometheus text-format parser (which throws on a malformed
 * line) and returns each sample's value by its exposition key, `name{labels}` as written.
 */
async function scrape(server: TestServer, headers: Record<string, string> = {}): Promise<Map<string, number>> {
  const res = await fetch(`${server.url}/metrics`, { headers });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const types = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family.type]));
  assert.is(types.get('tessera_rest_request_duration_seconds'), 'HISTOGRAM');
  assert.is(types.get('tessera_signins_total'), 'COUNTER');
  assert.is(types.get('tessera_players_online'), 'GAUGE');
  return metricSamples(text);
}

/** Every process of the cluster: the postmaster and its children. */
function clusterPids(postmaster: number): number[] {
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' }).split('\n').map(Number).filter((pid) => pid > 0);
  return [postmaster, ...children];
}

test('/healthz and /readyz answer JSON 200; /readyz is 503 naming the database while PostgreSQL is stopped, /healthz stays 200', async () => {
  const server = await startTestServer();
  try {
    const health = await fetch(`${server.url}/healthz`);
    assert.is(health.status, 200);
    assert.is(((await health.json()) as { status: string }).status, 'ok');
    const ready = await fetch(`${server.url}/readyz`);
    assert.is(ready.status, 200);
    assert.equal(await ready.json(), { status: 'ready', checks: { database: 'ok', migrations: 'ok', realtime: 'ok' } });

    const pids = clusterPids((await postmasterPid(server.dataDir))!);
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    await sleep(300); // kept: past the reuse of the last answer, a time rule
    try {
      const started = performance.now();
      const down = await fetch(`${server.url}/readyz`);
      assert.is(down.status, 503);
      assert.equal(await down.json(), { status: 'not ready', checks: { database: 'unreachable: no answer within 2000 ms', migrations: 'unknown', realtime: 'ok' } });
      assert.ok(performance.now() - started < 3000, 'answered within the readiness timeout');
      assert.is((await fetch(`${server.url}/healthz`)).status, 200);
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    await waitFor(async () => (await fetch(`${server.url}/readyz`)).status === 200, { message: 'ready again' });
  } finally {
    await server.stop();
  }
});

test('hostile: a flood of /readyz reaches the database at most about 4 times a second', async () => {
  const server = await startTestServer();
  try {
    const before = (await metricValue(server, 'tessera_readiness_queries_total'))!;
    const started = performance.now();
    for (let wave = 0; wave < 10; wave++) {
      const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(`${server.url}/readyz`).then((res) => res.status)));
      assert.ok(answers.every((status) => status === 200));
    }
    const seconds = (performance.now() - started) / 1000;
    const queries = (await metricValue(server, 'tessera_readiness_queries_total'))! - before;
    assert.ok(queries >= 1 && queries <= Math.ceil(seconds * 4) + 1, `${queries} readiness queries for 400 requests in ${seconds.toFixed(2)} s`);
  } finally {
    await server.stop();
  }
});

test('/metrics parses as Prometheus text and its counters move when a player signs in, subscribes and builds', async () => {
  const server = await startTestServer();
  try {
    const before = await scrape(server);
    for (const name of ['process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds', 'tessera_players_online', 'tessera_realtime_connections',
      'tessera_realtime_channels', 'tessera_broadcasts_shed_total{kind="near"}', 'tessera_db_statement_timeouts_total', 'tessera_blocks_total']) {
      assert.ok(before.has(name), `${name} is exposed`);
    }
    assert.is(before.get('tessera_signins_total{result="success"}'), 0);
    assert.is(before.get('tessera_db_pool_connections{state="waiting"}'), 0);

    const player = await signInPlayer(server);
    try {
      await enterAtSpawn(player, 'Metered');
      const channel = player.client.channel('metered').on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_blocks' }, () => undefined);
      await subscribeChannel(channel);
      const placed = await player.client.from('game_blocks').insert({ x: 5, y: 5, block_type: 'stone', player_id: player.address, player_name: 'Metered' });
      assert.is(placed.error, null);
      const refused = await postWeb3(server, await signedGrant(createTestWallet(), { url: 'https://elsewhere.example' }));
      assert.is(refused.status, 400);

      const after = await waitFor(async () => {
        const samples = await scrape(server);
        return samples.get('tessera_blocks_total') === 1 ? samples : null;
      }, { timeout: 5000, interval: 250, message: 'the block counted' });
      assert.is(after.get('tessera_signins_total{result="success"}'), 1);
      assert.is(after.get('tessera_signins_total{result="refused"}'), 1);
      assert.is(after.get('tessera_players_online'), 1);
      assert.is(after.get('tessera_realtime_connections'), 1);
      assert.is(after.get('tessera_realtime_channels'), 1);
      assert.ok(after.get('tessera_realtime_messages_total{direction="in"}')! >= 1, 'the join came in');
      assert.ok(after.get('tessera_realtime_messages_total{direction="out"}')! >= 1, 'the join reply went out');
      assert.is(after.get('tessera_rest_request_duration_seconds_count{method="POST",table="game_blocks",status="2xx"}'), 1);
      assert.is(after.get('tessera_rest_request_duration_seconds_count{method="POST",table="game_players",status="2xx"}'), 1);
    } finally {
      await player.client.removeAllChannels();
    }
  } finally {
    await server.stop();
  }
});

test('hostile: REST paths naming no table share one label, so a client cannot grow the metrics without bound', async () => {
  const server = await startTestServer();
  try {
    for (let i = 0; i < 20; i++) {
      await fetch(`${server.url}/rest/v1/made_up_${i}?select=*`, { headers: { apikey: server.anonKey } });
    }
    const samples = await scrape(server);
    assert.is(samples.get('tessera_rest_request_duration_seconds_count{method="GET",table="other",status="4xx"}'), 20);
    assert.not.ok([...samples.keys()].some((key) => key.includes('made_up')));
  } finally {
    await server.stop();
  }
});

test('/metrics with METRICS_TOKEN set: a wrong token is 401 with a Bearer challenge, the token reads it, loopback without a token reads it', async () => {
  const token = 'a-long-metrics-token-0123456789';
  const server = await startTestServer(undefined, { METRICS_TOKEN: token });
  const open = await startTestServer();
  try {
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all' } });
    assert.is(wrong.status, 401);
    assert.is(wrong.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    assert.ok((await scrape(server, { authorization: `Bearer ${token}` })).has('tessera_blocks_total'));
    assert.ok((await scrape(server)).has('tessera_blocks_total'));
    assert.is((await fetch(`${open.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
  } finally {
    await server.stop();
    await open.stop();
  }
});

test('each log line is one JSON object; request lines carry the request id sent back in X-Request-Id; no token, key or signature is logged', async () => {
  const server = await startTestServer(undefined, { LOG_LEVEL: 'debug' });
  try {
    const wallet = createTestWallet();
    const grant = await signedGrant(wallet, { url: server.url });
    const signedIn = await postWeb3(server, grant);
    assert.is(signedIn.status, 200);
    const session = signedIn.body as { access_token: string; refresh_token: string };
    const refused = await postWeb3(server, grant);
    assert.is(refused.status, 400);
    const player = await playerAtSpawn(server, 'Logged');
    const token = await accessToken(player);
    const bad = await fetch(`${server.url}/rest/v1/game_blocks?select=*`, { headers: { apikey: server.anonKey, authorization: `Bearer ${token}x` } });
    assert.is(bad.status, 401);
    const traced = await fetch(`${server.url}/rest/v1/game_blocks?select=*`, { headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, 'x-request-id': 'trace-42' } });
    assert.is(traced.headers.get('x-request-id'), 'trace-42');
    const hostile = await fetch(`${server.url}/config.json`, { headers: { 'x-request-id': 'has spaces "and quotes"' } });
    assert.match(hostile.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/);
    await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, {
      method: 'POST', headers: { apikey: server.anonKey, 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: session.refresh_token }),
    });
    const serviceKey = await readServiceRoleKey(server);
    await fetch(`${server.url}/auth/v1/admin/users`, { headers: { apikey: serviceKey, authorization: `Bearer ${serviceKey}` } });
    await waitFor(() => server.output().includes('trace-42'), { message: 'the traced request logged' });

    const lines = server.output().trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const tracedLine = entries.find((entry) => entry.reqId === 'trace-42')!;
    assert.equal([tracedLine.method, tracedLine.path, tracedLine.status, tracedLine.msg], ['GET', '/rest/v1/game_blocks', 200, 'request']);
    assert.ok(entries.filter((entry) => entry.msg === 'request').every((entry) => typeof entry.reqId === 'string'), 'every request line has an id');

    const secrets = {
      'the access token': session.access_token,
      'the refresh token': session.refresh_token,
      'the player access token': token,
      'the anon key': server.anonKey,
      'the service-role key': serviceKey,
      'the signing secret': await readJwtSecret(server),
      'the signature': (JSON.parse(grant) as { signature: string }).signature,
      'the superuser password': (await readFile(join(server.dataDir, 'postgres-password'), 'utf8')).trim(),
    };
    const log = server.output();
    for (const [what, secret] of Object.entries(secrets)) assert.not.ok(log.includes(secret), `${what} is not in the log`);
    // A token is a JWT: three base64url parts; none may appear in any line.
    assert.not.match(log, /eyJ[\w-]+\.[\w-]+\.[\w-]+/);
  } finally {
    await server.stop();
  }
});

test('LOG_LEVEL=warn writes no request or start lines, only warnings; a level that does not exist stops the start naming it', async () => {
  const dataDir = await makeDataDir();
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_ENTRY], { env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200, { timeout: 30_000, message: 'the quiet server ready' });
    const config = (await (await fetch(`http://127.0.0.1:${port}/config.json`)).json()) as { supabaseAnonKey: string };
    await fetch(`http://127.0.0.1:${port}/rest/v1/nope`, { headers: { apikey: config.supabaseAnonKey } });
    assert.is(output, '');
  } finally {
    child.kill('SIGTERM');
    await exited;
    await removeDataDir(dataDir);
  }
  const error = await startTestServer(undefined, { LOG_LEVEL: 'loud' }).then(() => null, (e: Error) => e);
  assert.match(error!.message, /LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got \\"loud\\"/);
});

test('SIGTERM with players connected: each sees the SERVER restart line in chat, the server exits 0, quickly', async () => {
  const server = await startTestServer();
  const seen: string[] = [];
  const players = await Promise.all([0, 1, 2].map(() => signInPlayer(server)));
  for (const player of players) {
    const channel = player.client.channel(`chat-${player.address}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_chat_messages' }, (change) => {
        const row = change.new as { player_name: string; message: string };
        seen.push(`${player.address} ${row.player_name}: ${row.message}`);
      });
    await subscribeChannel(channel);
  }
  const started = performance.now();
  assert.is(await server.stop(), 0);
  const took = performance.now() - started;
  assert.equal(seen.sort(), players.map((p) => `${p.address} SERVER: The server is restarting. Back in a moment.`).sort());
  assert.ok(took < 10_000, `stopped in ${Math.round(took)} ms`);
  for (const player of players) await player.client.removeAllChannels();
});

test('/config.json names the loopback origin the page came from, and the site for any other Host', async () => {
  const server = await startTestServer();
  try {
    const port = new URL(server.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const res = await rawRequest(server, 'GET', '/config.json', { host });
      assert.is((res.body as { supabaseUrl: string }).supabaseUrl, `http://${host}`);
      assert.is(res.headers.vary, 'Host');
    }
    const other = await rawRequest(server, 'GET', '/config.json', { host: 'evil.example' });
    assert.is((other.body as { supabaseUrl: string }).supabaseUrl, `http://localhost:${port}`);
  } finally {
    await server.stop();
  }
});

test('with SITE_URL set the page still works on 127.0.0.1, but a sign-in signed for 127.0.0.1 is refused', async () => {
  const server = await startTestServer(undefined, { SITE_URL: 'https://tessera.example' });
  try {
    const port = new URL(server.url).port;
    const local = `http://127.0.0.1:${port}`;
    const config = (await (await fetch(`${local}/config.json`)).json()) as { supabaseUrl: string };
    assert.is(config.supabaseUrl, local);
    const elsewhere = await rawRequest(server, 'GET', '/config.json', { host: 'tessera.example' });
    assert.is((elsewhere.body as { supabaseUrl: string }).supabaseUrl, 'https://tessera.example');
    const refused = await postWeb3(server, await signedGrant(createTestWallet(), { url: local }));
    assert.is(refused.status, 400);
  } finally {
    await server.stop();
  }
});

test.run();
