/**
 * Faults: kill -9 in the middle of a write burst loses no acknowledged row, sessions outlive the
 * restart, and a second server on the same DATA_DIR refuses to start.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestClient, makeDataDir, removeDataDir, signInPlayer, startTestServer, type TestPlayer } from '../../support/harness.js';
import { enterAtSpawn } from '../../support/rules.js';
import { waitFor } from '../../support/wait.js';

const WRITERS = 4;
/** Blocks each writer may place in its burst (the per-wallet burst of the block rate limit). */
const PER_WRITER = 40;

/**
 * Inserts blocks one after another until told to stop or refused; returns the acknowledged tiles.
 * Writer `w` fills rows 3 + w and -3 - w, 20 tiles each, all in view of its place at spawn.
 */
async function burst(player: TestPlayer, w: number, stop: { now: boolean }): Promise<string[]> {
  const acknowledged: string[] = [];
  for (let i = 0; i < PER_WRITER && !stop.now; i++) {
    const x = -10 + (i % 20);
    const row = i < 20 ? 3 + w : -3 - w;
    const { error } = await player.client.from('game_blocks').insert({ x, y: row, block_type: 'stone', player_id: player.address, player_name: 'Burst' });
    if (error) break;
    acknowledged.push(`${x},${row}`);
  }
  return acknowledged;
}

test('kill -9 during a write burst: every acknowledged row survives; sessions and the lock hold', async () => {
  const dataDir = await makeDataDir();
  try {
    const first = await startTestServer(dataDir);
    const writers = await Promise.all(Array.from({ length: WRITERS }, () => signInPlayer(first)));
    const stop = { now: false };
    await Promise.all(writers.map((player, i) => enterAtSpawn(player, `Burst${i}`)));
    const bursts = writers.map((player, i) => burst(player, i, stop));
    // Kill once about half of the writes are stored, while the others are in flight.
    await waitFor(
      async () => {
        const { count } = await writers[0]!.client.from('game_blocks').select('*', { count: 'exact', head: true });
        return (count ?? 0) >= (WRITERS * PER_WRITER) / 2;
      },
      { timeout: 10_000, interval: 5, message: 'half of the burst stored' },
    );
    await first.kill();
    stop.now = true;
    const acknowledged = (await Promise.all(bursts)).flat();
    assert.ok(acknowledged.length > 0 && acknowledged.length < WRITERS * PER_WRITER, `killed mid-burst after ${acknowledged.length} acknowledgements`);

    const second = await startTestServer(dataDir);
    try {
      const session = (await writers[0]!.client.auth.getSession()).data.session!;
      const reader = createTestClient(second);
      const restored = await reader.auth.setSession({ access_token: session.access_token, refresh_token: session.refresh_token });
      assert.is(restored.error, null, 'the session made before the crash is accepted after it');
      const { data, error } = await reader.from('game_blocks').select('x, y');
      assert.is(error, null);
      const stored = new Set(data!.map((r) => `${r.x},${r.y}`));
      const lost = acknowledged.filter((tile) => !stored.has(tile));
      assert.equal(lost, [], `${lost.length} acknowledged rows lost`);
      // At most one write per writer was in flight and may or may not have landed.
      assert.ok(stored.size - acknowledged.length <= WRITERS, `${stored.size} stored for ${acknowledged.length} acknowledged`);
      await reader.from('game_players').upsert({ player_id: writers[0]!.address, player_name: 'Burst0', x: 0, y: 0 }, { onConflict: 'player_id' });
      const write = await reader.from('game_blocks').insert({ x: 12, y: 9, block_type: 'wood', player_id: writers[0]!.address, player_name: 'After' });
      assert.is(write.error, null, 'the old session still writes');

      const refused = await startTestServer(dataDir).then(() => null, (e: Error) => e);
      assert.ok(refused, 'a second server on the same DATA_DIR must not start');
      assert.match(refused!.message, /exited with 1/);
      assert.match(refused!.message, /DATA_DIR is locked/);
      const still = await reader.from('game_blocks').select('x').eq('y', 9);
      assert.equal(still.data, [{ x: 12 }], 'the running server is unaffected');
    } finally {
      await second.stop();
    }
  } finally {
    await removeDataDir(dataDir);
  }
});

test.run();
