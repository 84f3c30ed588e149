/**
 * The embedded PostgreSQL: restart after every kind of crash with every acknowledged row, a
 * runaway request cancelled at its role's budget while others are served, DATABASE_URL against a
 * separately started cluster, and the one-time import of a PGlite DATA_DIR.
 */
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bootstrap } from '../../../server/db/bootstrap.js';
import { startCluster } from '../../../server/db/cluster.js';
import { migrate } from '../../../server/db/migrate.js';
import { processState, waitGone } from '../../../server/db/processes.js';
import type { Database, Queryable } from '../../../server/db/types.js';
import { makeDataDir, postmasterPid, removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { enterAtSpawn, nameOf, playerAtSpawn } from '../../support/rules.js';

/** Writes `count` blocks one by one near spawn; each resolves only once the server acknowledged it. */
async function writeBlocks(player: TestPlayer, y: number, count: number): Promise<number[]> {
  const xs: number[] = [];
  for (let i = 0; i < count; i++) {
    const x = -8 + i;
    const { error } = await player.client.from('game_blocks').insert({ x, y, block_type: 'marble', player_id: player.address, player_name: nameOf(player) });
    assert.is(error, null, JSON.stringify(error));
    xs.push(x);
  }
  return xs;
}

async function blocksAt(server: TestServer, player: TestPlayer, y: number): Promise<number[]> {
  const again = await signInPlayer(server, player.wallet);
  const { data, error } = await again.client.from('game_blocks').select('x').eq('y', y).order('x');
  assert.is(error, null);
  return data!.map((row) => row.x as number);
}

/** Starts a server, writes rows, crashes it with `crash`, restarts within 10 s and finds every row. */
async function survives(label: string, crash: (server: TestServer, postmaster: number) => Promise<void>): Promise<void> {
  const dataDir = await makeDataDir();
  try {
    const first = await startTestServer(dataDir);
    const player = await playerAtSpawn(first);
    const written = await writeBlocks(player, 6, 12);
    const postmaster = (await postmasterPid(dataDir))!;
    assert.ok(postmaster, 'a postmaster is recorded');
    await crash(first, postmaster);
    const started = performance.now();
    const second = await startTestServer(dataDir);
    try {
      assert.ok(performance.now() - started < 10_000, `${label}: serving within 10 s`);
      assert.equal(await blocksAt(second, player, 6), written, `${label}: every acknowledged row`);
      assert.is(processState(postmaster), 'gone', `${label}: the old postmaster is gone`);
    } finally {
      await second.stop();
    }
  } finally {
    await removeDataDir(dataDir);
  }
}

test('kill -9 of the server alone: the orphaned PostgreSQL is shut down and the restart has every row', async () => {
  await survives('orphaned', async (server, postmaster) => {
    await server.kill();
    assert.is(processState(postmaster), 'running', 'PostgreSQL outlives the killed server');
  });
});

test('kill -9 of every process (server and PostgreSQL groups): the restart recovers every row', async () => {
  await survives('all killed', async (server, postmaster) => {
    process.kill(-postmaster, 'SIGKILL');
    await server.kill();
    await waitGone(postmaster, 5000);
  });
});

test('dead processes left as zombies by a parent that never reaps them: the restart still comes up', async () => {
  const dataDir = await makeDataDir();
  // A parent that adopts orphans (PR_SET_CHILD_SUBREAPER) and never waits: like a container whose
  // init does not reap. It starts the server and prints its pid.
  const reaperless = spawn('python3', ['-c', `
import ctypes, subprocess, sys, time, os
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
child = subprocess.Popen([${JSON.stringify(process.execPath)}, 'dist/server.mjs'],
                         env=dict(os.environ, PORT='0', DATA_DIR=${JSON.stringify(dataDir)}), stdout=sys.stdout, stderr=subprocess.DEVNULL)
print('pid', child.pid, flush=True)
time.sleep(3600)
`], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      reaperless.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/listening on http/.test(out)) resolve();
      });
      reaperless.once('exit', () => reject(new Error(`the server under the parent did not start: ${out}`)));
    });
    const serverPid = Number(/pid (\d+)/.exec(out)![1]);
    const url = /listening on (http:\/\/[^\s"]+)/.exec(out)![1]!;
    const anonKey = ((await (await fetch(`${url}/config.json`)).json()) as { supabaseAnonKey: string }).supabaseAnonKey;
    const player = await playerAtSpawn({ url, anonKey });
    const written = await writeBlocks(player, 9, 8);
    const postmaster = (await postmasterPid(dataDir))!;
    // The server first: were the postmaster killed first, the server could still reap it. Once
    // the server is gone the postmaster belongs to the parent that never reaps.
    process.kill(serverPid, 'SIGKILL');
    assert.ok(await waitGone(serverPid, 5000));
    process.kill(-postmaster, 'SIGKILL');
    assert.ok(await waitGone(postmaster, 5000));
    // Both pids still exist, as zombies: only their parent could reap them.
    assert.ok(existsSync(`/proc/${serverPid}`), 'the server is a zombie');
    assert.ok(existsSync(`/proc/${postmaster}`), 'the postmaster is a zombie');
    const second = await startTestServer(dataDir);
    try {
      assert.equal(await blocksAt(second, player, 9), written);
    } finally {
      await second.stop();
    }
  } finally {
    reaperless.kill('SIGKILL');
    await removeDataDir(dataDir);
  }
});

test("a runaway request is cancelled at its role's budget (57014) while another player is served", async () => {
  const dataDir = await makeDataDir();
  try {
    const first = await startTestServer(dataDir);
    await first.stop();
    // A slow view and a short anon budget, set in the database as an operator would.
    const cluster = await startCluster(dataDir);
    const admin = new pg.Client(cluster.connection);
    admin.on('error', () => undefined); // The cluster stops under it if the test fails midway.
    await admin.connect();
    await admin.query(`create view public.slow_view as select 1 as one from pg_sleep(5)`);
    await admin.query('grant select on public.slow_view to anon');
    await admin.query(`alter role anon set statement_timeout = '300ms'`);
    await admin.end();
    await cluster.stop();
    const server = await startTestServer(dataDir);
    try {
      const headers = { apikey: server.anonKey, authorization: `Bearer ${server.anonKey}` };
      const started = performance.now();
      const slow = fetch(`${server.url}/rest/v1/slow_view?select=one`, { headers });
      const quick: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const res = await fetch(`${server.url}/rest/v1/game_blocks?select=x&limit=1`, { headers });
        assert.is(res.status, 200);
        quick.push(performance.now() - t);
      }
      const res = await slow;
      const body = (await res.json()) as { code: string; message: string };
      assert.is(res.status, 500);
      assert.is(body.code, '57014');
      assert.match(body.message, /statement timeout/);
      const took = performance.now() - started;
      assert.ok(took < 2500, `cancelled at its budget, not after the 5 s sleep (${Math.round(took)} ms)`);
      assert.ok(Math.max(...quick) < took, 'the other requests did not wait for it');
    } finally {
      await server.stop();
    }
  } finally {
    await removeDataDir(dataDir);
  }
});

test('DATABASE_URL points the server at a separately started PostgreSQL; nothing is started in DATA_DIR', async () => {
  const clusterDir = await makeDataDir();
  const dataDir = await makeDataDir();
  const cluster = await startCluster(clusterDir, { tcp: true });
  try {
    const { host, port, user, password, database } = cluster.connection;
    const url = `postgres://${user}:${encodeURIComponent(password!)}@${host}:${port}/${database}`;
    const server = await startTestServer(dataDir, { DATABASE_URL: url });
    try {
      assert.not.ok(existsSync(join(dataDir, 'postgres')), 'no embedded cluster');
      const player = await playerAtSpawn(server);
      const written = await writeBlocks(player, 5, 3);
      const admin = new pg.Client(cluster.connection);
      await admin.connect();
      const { rows } = await admin.query('select x from public.game_blocks where y = 5 order by x');
      await admin.end();
      assert.equal(rows.map((r) => r.x as number), written);
    } finally {
      await server.stop();
    }
  } finally {
    await cluster.stop();
    await removeDataDir(clusterDir);
    await removeDataDir(dataDir);
  }
});

/** {@link Database} enough for bootstrap and migrate, over PGlite, as the PGlite version of the server kept it. */
function pgliteDatabase(lite: PGlite): Database {
  const q: Queryable = {
    query: async <Row,>(sql: string, params?: unknown[]) => {
      const result = await lite.query<Row>(sql, params);
      return { rows: result.rows, fields: result.fields };
    },
    exec: async (sql) => {
      await lite.exec(sql);
    },
  };
  return {
    ...q,
    poolStats: () => ({ active: 0, idle: 0, waiting: 0 }),
    transaction: (fn) => lite.transaction((tx) => fn({
      query: async <Row,>(sql: string, params?: unknown[]) => {
        const result = await tx.query<Row>(sql, params);
        return { rows: result.rows, fields: result.fields };
      },
      exec: async (sql) => {
        await tx.exec(sql);
      },
    })),
    withClaims: () => Promise.reject(new Error('not used')),
    checkWithClaims: () => Promise.reject(new Error('not used')),
    runWithClaims: () => Promise.reject(new Error('not used')),
    tryLock: () => Promise.reject(new Error('not used')),
    listen: () => Promise.reject(new Error('not used')),
    close: () => lite.close(),
  };
}

test('a DATA_DIR written by the PGlite version is imported once, every row, and its files kept aside', async () => {
  const dataDir = await makeDataDir();
  try {
    // The world of a PGlite server: the same bootstrap and migrations, and a player's rows.
    await mkdir(join(dataDir, 'pgdata'));
    const lite = await PGlite.create({ dataDir: join(dataDir, 'pgdata') });
    const old = pgliteDatabase(lite);
    await bootstrap(old);
    await migrate(old, 'supabase/migrations');
    const userId = '11111111-2222-4333-8444-555555555555';
    await lite.exec(`
      set session_replication_role = replica;
      insert into auth.users (id) values ('${userId}');
      insert into auth.identities (provider_id, user_id, identity_data, provider) values ('OldWallet111', '${userId}', '{"address":"OldWallet111"}', 'web3');
      insert into public.game_blocks (x, y, block_type, player_id, player_name) select g, 12, 'gold', 'OldWallet111', 'Elder' from generate_series(10, 29) g;
      insert into public.game_chat_messages (player_id, player_name, message) values ('OldWallet111', 'Elder', 'first words'), ('OldWallet111', 'Elder', 'second words');
    `);
    await lite.close();

    const server = await startTestServer(dataDir);
    try {
      assert.match(server.output(), /Imported .*20 public\.game_blocks/);
      assert.ok(existsSync(join(dataDir, 'pgdata.pglite-imported', 'PG_VERSION')), 'the old files are kept');
      assert.not.ok(existsSync(join(dataDir, 'pgdata')));
      const reader = await signInPlayer(server);
      const blocks = await reader.client.from('game_blocks').select('x, block_type, player_name').eq('y', 12).order('x');
      assert.is(blocks.data!.length, 20);
      assert.equal(blocks.data![0], { x: 10, block_type: 'gold', player_name: 'Elder' });
      const chat = await reader.client.from('game_chat_messages').select('message');
      assert.equal(chat.data!.map((row) => row.message as string).sort(), ['first words', 'second words']);
      // New rows go on beside the imported ones.
      await enterAtSpawn(reader, nameOf(reader));
      const more = await reader.client.from('game_chat_messages').insert({ player_id: reader.address, player_name: nameOf(reader), message: 'hello' }).select('id');
      assert.is(more.error, null, JSON.stringify(more.error));
    } finally {
      await server.stop();
    }
    // Imported once: the next start finds nothing to import.
    const again = await startTestServer(dataDir);
    await again.stop();
    assert.not.match(again.output(), /Imported/);
  } finally {
    await removeDataDir(dataDir);
  }
});

test.run();
