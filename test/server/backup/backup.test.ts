import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readHeader, tableChecksums, trailerOf, type TableSummary } from '../../../server/backup/archive.js';
import { scheduleBackups } from '../../../server/backup/schedule.js';
import { runningCluster } from '../../../server/backup/connect.js';
import { startCluster } from '../../../server/db/cluster.js';
import { makeDataDir, removeDataDir, signInPlayer, startTestServer, type TestPlayer } from '../../support/harness.js';
import { readJwtSecret } from '../../support/server.js';
import { HOSTED_PROJECT_SQL, OWNER, OWNER_PASSWORD } from '../../support/hosted-project.js';
import { accessToken } from '../../support/live.js';
import { enterAtSpawn, playerAtSpawn, tilesInViewOfSpawn } from '../../support/rules.js';
import { sleep, waitFor } from '../../support/wait.js';

const run = promisify(execFile);
const ADMIN = join('dist', 'admin.mjs');

/** Runs `node dist/admin.mjs …args` with `env`; resolves to its exit code and output. */
async function admin(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [ADMIN, ...args], { env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

const GAME_TABLES = (sums: Record<string, TableSummary>) => Object.fromEntries(Object.entries(sums).filter(([name]) => !name.startsWith('auth.')));

test('a backup while 20 players build holds every row acknowledged before it; restored into a new DATA_DIR every count and checksum matches and sessions stay valid; a hosted-like project takes the same archive and is played on', async () => {
  const source = await startTestServer();
  const work = await makeDataDir();
  const restoredDir = await makeDataDir();
  const clusterDir = await makeDataDir();
  const hostedDataDir = await makeDataDir();
  try {
    const players: TestPlayer[] = await Promise.all(Array.from({ length: 20 }, () => signInPlayer(source)));
    await Promise.all(players.map((p, i) => enterAtSpawn(p, `Builder${i}`)));
    const tiles = tilesInViewOfSpawn();
    const acknowledged: Array<{ x: number; y: number; at: number }> = [];
    let building = true;
    const builders = players.map(async (player, i) => {
      for (let k = i; building && k < tiles.length; k += players.length) {
        const { x, y } = tiles[k]!;
        const { error } = await player.client.from('game_blocks').insert({ x, y, block_type: 'brick', player_id: player.address, player_name: `Builder${i}` });
        if (!error) acknowledged.push({ x, y, at: performance.now() });
        await sleep(130); // kept: each builder's pace
      }
    });
    await waitFor(() => acknowledged.length >= 40, { timeout: 15_000, message: 'blocks acknowledged before the backup' });
    const archive = join(work, 'world.backup.gz');
    const backupStarted = performance.now();
    const backup = await admin({ DATA_DIR: source.dataDir }, 'backup', archive);
    assert.is(backup.code, 0, backup.stderr);
    const before = acknowledged.filter((row) => row.at < backupStarted);
    building = false;
    await Promise.all(builders);
    assert.ok(before.length >= 20, `${before.length} blocks acknowledged before the backup`);
    assert.ok(acknowledged.length > before.length, 'players kept building while it ran');
    assert.match(backup.stderr, /backup: public\.game_blocks \d+ rows/);
    const written = JSON.parse(backup.stdout) as { tables: Record<string, TableSummary> };

    const restore = await admin({ DATA_DIR: restoredDir }, 'restore', archive);
    assert.is(restore.code, 0, restore.stderr);
    const restoredServer = await startTestServer(restoredDir);
    try {
      const reader = await signInPlayer(restoredServer);
      const { data } = await reader.client.from('game_blocks').select('x, y').range(0, 999);
      const present = new Set(data!.map((row) => `${row.x},${row.y}`));
      for (const row of before) assert.ok(present.has(`${row.x},${row.y}`), `block ${row.x},${row.y} acknowledged before the backup`);
      assert.equal(GAME_TABLES(await tableChecksums(runningCluster(restoredDir)!)), GAME_TABLES(written.tables));
      // The players' sessions from the source server are valid on the restored one.
      const token = await accessToken(players[0]!);
      const res = await fetch(`${restoredServer.url}/auth/v1/user`, { headers: { apikey: restoredServer.anonKey, authorization: `Bearer ${token}` } });
      assert.is(res.status, 200);
      assert.is(restoredServer.anonKey, source.anonKey);

      // A non-empty target is refused unless told.
      await restoredServer.stop();
      const again = await admin({ DATA_DIR: restoredDir }, 'restore', archive);
      assert.is(again.code, 1);
      assert.match(again.stdout + again.stderr, /the target is not empty \(\d+ rows in auth\.users, .*add --replace/);
      const replaced = await admin({ DATA_DIR: restoredDir }, 'restore', archive, '--replace');
      assert.is(replaced.code, 0, replaced.stderr);
    } finally {
      await restoredServer.stop();
    }

    // The hosted-like project: migrations applied by the server as the non-superuser owner, then the archive.
    const cluster = await startCluster(clusterDir, { tcp: true });
    try {
      const superuser = new pg.Client(cluster.connection);
      await superuser.connect();
      await superuser.query(HOSTED_PROJECT_SQL);
      await superuser.end();
      const { host, port, database } = cluster.connection;
      const url = `postgres://${OWNER}:${OWNER_PASSWORD}@${host}:${port}/${database}`;
      const intoHosted = await admin({ DATA_DIR: hostedDataDir, DATABASE_URL: url }, 'restore', archive);
      assert.is(intoHosted.code, 0, intoHosted.stderr);
      const hostedSums = await tableChecksums({ connectionString: url });
      assert.equal(GAME_TABLES(hostedSums), GAME_TABLES(written.tables));
      const hosted = await startTestServer(hostedDataDir, { DATABASE_URL: url });
      try {
        const token = await accessToken(players[1]!);
        const user = await fetch(`${hosted.url}/auth/v1/user`, { headers: { apikey: hosted.anonKey, authorization: `Bearer ${token}` } });
        assert.is(user.status, 200);
        const player = await signInPlayer(hosted, players[2]!.wallet);
        await enterAtSpawn(player, 'Builder2');
        const free = tiles.find((tile) => !acknowledged.some((row) => row.x === tile.x && row.y === tile.y))!;
        const placed = await player.client.from('game_blocks').insert({ x: free.x, y: free.y, block_type: 'gold', player_id: player.address, player_name: 'Builder2' });
        assert.is(placed.error, null, JSON.stringify(placed.error));
        const edits = await player.client.from('game_block_edits').select('id').order('id', { ascending: false }).limit(1);
        assert.is(edits.error, null);
      } finally {
        await hosted.stop();
      }
    } finally {
      await cluster.stop();
    }
  } finally {
    await source.stop();
    for (const dir of [work, restoredDir, clusterDir, hostedDataDir]) await removeDataDir(dir);
  }
});

test('scheduled backups land in DATA_DIR/backups, whole and readable, and only the newest BACKUP_KEEP stay', async () => {
  const server = await startTestServer();
  try {
    await playerAtSpawn(server, 'Kept');
    const stop = scheduleBackups(runningCluster(server.dataDir)!, server.dataDir, 400, 2);
    await sleep(3000); // kept: the schedule's timer runs several rounds, pruning as it goes
    await stop();
    const names = (await readdir(join(server.dataDir, 'backups'))).sort();
    assert.is(names.length, 2);
    for (const name of names) {
      assert.match(name, /^tessera-\d{8}T\d{9}Z\.backup\.gz$/);
      const trailer = await trailerOf(join(server.dataDir, 'backups', name));
      assert.is(trailer['public.game_players']!.rows, 1);
      assert.is((await readHeader(join(server.dataDir, 'backups', name))).secret, await readJwtSecret(server));
    }
  } finally {
    await server.stop();
  }
});

test.run();
