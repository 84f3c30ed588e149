/**
 * Nodes start in any order and at the same time on one PostgreSQL, and share what they need to
 * accept one another's sessions: the signing secret (from the database, carried over from an
 * older DATA_DIR/jwt-secret), hence one anon key and one service-role key.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { keysOf } from '../../../server/auth/keys.js';
import { CLUSTER_SITE_URL, embeddedDatabaseUrl, startCluster, type TestCluster } from '../../support/cluster.js';
import { createTestClient, signInPlayer } from '../../support/harness.js';
import { accessToken, subscribeChannel, userIdOf } from '../../support/live.js';
import { makeDataDir, readServiceRoleKey, removeDataDir, startServer, type TestServer } from '../../support/server.js';
import { sleep, waitFor } from '../../support/wait.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startCluster(3, {}, { atOnce: true });
});

test.after(async () => {
  await cluster?.close();
});

/** GET of `path` on `server` with `token`: the status and the JSON body. */
async function getWith(server: Pick<TestServer, 'url' | 'anonKey'>, path: string, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${path}`, { headers: { apikey: server.anonKey, authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A token of a user signed with `secret` (base64url), valid for ten minutes. */
async function userToken(secret: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const keys = await keysOf(Buffer.from(secret, 'base64url'));
  return keys.sign({ role: 'authenticated', aud: 'authenticated', sub: randomUUID(), session_id: randomUUID(), iat: now, exp: now + 600 });
}

/** What REST answers a token whose signature does not verify. */
const FORGED = { status: 401, code: 'PGRST301' };

test('three nodes started at once on one PostgreSQL are all ready, with one signing secret, one anon key and one service-role key', async () => {
  for (const node of cluster.nodes) {
    const ready = await (await fetch(`${node.url}/readyz`)).json();
    assert.equal(ready, { status: 'ready', checks: { database: 'ok', migrations: 'ok', realtime: 'ok', redis: 'ok' } });
  }
  assert.equal(new Set(cluster.nodes.map((node) => node.anonKey)).size, 1);
  const serviceKeys = await Promise.all(cluster.nodes.map((node) => readServiceRoleKey(node)));
  assert.equal(new Set(serviceKeys).size, 1);
  const db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  try {
    assert.is((await db.query('select count(*)::int as n from auth.jwt_secret')).rows[0].n, 1);
    // No request role may read it, not even service_role.
    for (const role of ['anon', 'authenticated', 'service_role']) {
      assert.is((await db.query(`select has_table_privilege($1, 'auth.jwt_secret', 'select') as may`, [role])).rows[0].may, false, role);
    }
  } finally {
    await db.end();
  }
});

test('a token issued by node-1 is accepted by node-2\'s REST and Realtime; a token signed with another secret is refused there', async () => {
  const [first, second] = cluster.nodes as [TestServer, TestServer];
  const player = await signInPlayer(first);
  const token = await accessToken(player);
  const user = await getWith(second, '/auth/v1/user', token);
  assert.equal({ status: user.status, id: user.body.id }, { status: 200, id: await userIdOf(player) });
  assert.is((await getWith(second, '/rest/v1/game_blocks?limit=1', token)).status, 200);
  const client = createTestClient(second);
  await client.realtime.setAuth(token);
  const changes = client.channel(`boot-${randomUUID()}`).on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_chat_messages' }, () => undefined);
  assert.is((await subscribeChannel(changes)).state, 'joined');
  client.realtime.disconnect();

  const forged = await getWith(second, '/rest/v1/game_blocks?limit=1', await userToken(randomBytes(48).toString('base64url')));
  assert.equal({ status: forged.status, code: forged.body.code }, FORGED);
});

test('a node restarted while the others run starts, waiting as long as another node\'s schema change takes, and signs with the same keys', async () => {
  const node = cluster.nodes.pop()!;
  await node.kill();
  const holder = new pg.Client({ connectionString: cluster.databaseUrl });
  await holder.connect();
  let restarted: TestServer | null = null;
  try {
    // Another node's schema change, longer than the 1 s budget of the server's own statements.
    await holder.query("select pg_advisory_lock(hashtext('tessera_scripts'))");
    const starting = startServer({ dataDir: node.dataDir, env: { REDIS_URL: cluster.redis.url, SITE_URL: CLUSTER_SITE_URL, DATABASE_URL: cluster.databaseUrl, NODE_ID: 'node-3' } });
    await waitFor(async () => (await holder.query(`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`)).rows[0].n === 1, { message: 'the restarting node waiting for the schema lock' });
    await sleep(1500); // kept: the wait must outlast the 1 s statement budget
    await holder.query("select pg_advisory_unlock(hashtext('tessera_scripts'))");
    restarted = await starting;
    assert.is(restarted.anonKey, cluster.nodes[0]!.anonKey);
    const token = await accessToken(await signInPlayer(cluster.nodes[0]!));
    assert.is((await getWith(restarted, '/auth/v1/user', token)).status, 200);
  } finally {
    await holder.end();
    await restarted?.stop();
    await removeDataDir(node.dataDir);
  }
});

test('a server upgraded with DATA_DIR/jwt-secret keeps its players\' tokens; a node joining it with another file signs with the shared secret', async () => {
  const dataDir = await makeDataDir();
  const otherDir = await makeDataDir();
  const older = randomBytes(48).toString('base64url');
  const stale = randomBytes(48).toString('base64url');
  await writeFile(join(dataDir, 'jwt-secret'), older, { mode: 0o600 });
  await writeFile(join(otherDir, 'jwt-secret'), stale, { mode: 0o600 });
  const signedBefore = await userToken(older);
  const upgraded = await startServer({ dataDir });
  let joining: TestServer | null = null;
  try {
    assert.is(upgraded.anonKey, (await keysOf(Buffer.from(older, 'base64url'))).anonKey);
    assert.match(upgraded.output(), 'the signing secret of DATA_DIR/jwt-secret is now the one every node shares');
    assert.is((await getWith(upgraded, '/rest/v1/game_blocks?limit=1', signedBefore)).status, 200);

    joining = await startServer({ dataDir: otherDir, env: { DATABASE_URL: await embeddedDatabaseUrl(upgraded) } });
    assert.is(joining.anonKey, upgraded.anonKey);
    assert.is(await readServiceRoleKey(joining), await readServiceRoleKey(upgraded));
    assert.is((await getWith(joining, '/rest/v1/game_blocks?limit=1', signedBefore)).status, 200);
    const staleToken = await getWith(joining, '/rest/v1/game_blocks?limit=1', await userToken(stale));
    assert.equal({ status: staleToken.status, code: staleToken.body.code }, FORGED);
  } finally {
    await joining?.stop();
    await upgraded.stop();
    await removeDataDir(dataDir);
    await removeDataDir(otherDir);
  }
});

test('a node of a cluster without SITE_URL stops at its start, saying why', async () => {
  const error = await startServer({ env: { REDIS_URL: cluster.redis.url, DATABASE_URL: cluster.databaseUrl } }).then(() => null, (e: unknown) => e as Error);
  assert.ok(error);
  assert.match(error.message, 'REDIS_URL needs SITE_URL: every node of a cluster signs players in for the one public URL they open (the balancer\'s)');
});

test.run();
