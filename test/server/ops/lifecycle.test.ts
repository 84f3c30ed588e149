import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDataDir, removeDataDir, signInPlayer, startTestServer } from '../../support/harness.js';
import { playerAtSpawn } from '../../support/rules.js';

test('acknowledged writes survive kill -9 and a restart on the same DATA_DIR', async () => {
  const dataDir = await makeDataDir();
  try {
    const first = await startTestServer(dataDir);
    const player = await playerAtSpawn(first, 'Durable');
    const rows = Array.from({ length: 20 }, (_, i) => ({
      x: -10 + i, y: 7, block_type: 'marble', player_id: player.address, player_name: 'Durable',
    }));
    for (const row of rows) {
      const { error } = await player.client.from('game_blocks').insert(row);
      assert.is(error, null);
    }
    const chat = await player.client.from('game_chat_messages').insert({ player_id: player.address, player_name: 'Durable', message: 'still here' });
    assert.is(chat.error, null);
    await first.kill();

    const second = await startTestServer(dataDir);
    try {
      const again = await signInPlayer(second, player.wallet);
      const blocks = await again.client.from('game_blocks').select('x').eq('y', 7).order('x');
      assert.equal(blocks.data, rows.map((r) => ({ x: r.x })));
      const messages = await again.client.from('game_chat_messages').select('message');
      assert.equal(messages.data, [{ message: 'still here' }]);
      assert.is(second.anonKey, first.anonKey);
    } finally {
      await second.stop();
    }
  } finally {
    await removeDataDir(dataDir);
  }
});

test('a session made before a clean restart still works after it', async () => {
  const dataDir = await makeDataDir();
  try {
    const first = await startTestServer(dataDir);
    const player = await signInPlayer(first);
    assert.is(await first.stop(), 0);
    const second = await startTestServer(dataDir);
    try {
      const session = (await player.client.auth.getSession()).data.session!;
      const res = await fetch(`${second.url}/rest/v1/game_blocks?select=x`, {
        headers: { apikey: second.anonKey, authorization: `Bearer ${session.access_token}` },
      });
      assert.is(res.status, 200);
    } finally {
      await second.stop();
    }
  } finally {
    await removeDataDir(dataDir);
  }
});

test('a second server on the same DATA_DIR exits non-zero naming the lock', async () => {
  const first = await startTestServer();
  try {
    const error = await startTestServer(first.dataDir).then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(error, 'the second server must not start');
    assert.match(error!.message, /exited with 1/);
    assert.match(error!.message, /DATA_DIR is locked: .*tessera\.lock/);
    const res = await fetch(`${first.url}/config.json`);
    assert.is(res.status, 200);
  } finally {
    await first.stop();
  }
});

test.run();
