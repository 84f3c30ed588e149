/**
 * The support rule in the database: a block on water needs a neighbouring block, and a removal
 * that cuts a bridge removes the blocks left floating in the same transaction, so every client
 * hears the whole change from one request.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isWaterTile, WORLD_SEED } from '../../../../components/terrain.js';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { createRules, nameOf } from '../../../support/rules.js';
import { waitFor } from '../../../support/wait.js';
import { subscribeChannel } from '../../../support/live.js';

let server: TestServer;
let rules: ReturnType<typeof createRules>;
let reader: TestPlayer;
let builder: TestPlayer;

/** A shore near spawn: land at tile x -31, water from -30 to -27, on row -32. */
const ROW = -32;
const LAND = -31;

test.before(async () => {
  server = await startTestServer();
  reader = await signInPlayer(server);
  rules = createRules(reader);
  builder = await signInPlayer(server);
  await rules.walkTo(builder, -29 * 32, ROW * 32 + 16);
});

test.after(async () => {
  await server.stop();
});

const place = (x: number) =>
  builder.client.from('game_blocks').insert({ x, y: ROW, block_type: 'wood', player_id: builder.address, player_name: nameOf(builder) });
const row = async () =>
  ((await reader.client.from('game_blocks').select('x').eq('y', ROW).order('x')).data ?? []).map((b) => b.x as number);

test('the shore is where terrain.ts says it is', () => {
  assert.is(isWaterTile(LAND, ROW, WORLD_SEED), false);
  for (let x = LAND + 1; x <= LAND + 4; x++) assert.ok(isWaterTile(x, ROW, WORLD_SEED), `tile ${x},${ROW} is water`);
});

test('a block on water needs a neighbouring block', async () => {
  await rules.refused('a lone block on water', 'game_blocks', () => place(LAND + 3), '23514', 400, /neighbouring block/);
  assert.is((await place(LAND)).error, null, 'honest: on land');
  for (let x = LAND + 1; x <= LAND + 4; x++) assert.is((await place(x)).error, null, `honest: bridge block ${x}`);
  assert.equal(await row(), [-31, -30, -29, -28, -27]);
});

test('cutting the bridge removes the floating blocks in the same transaction, one change stream', async () => {
  const deleted: number[] = [];
  const channel = reader.client
    .channel('bridge')
    .on('postgres_changes', { event: 'DELETE', schema: 'public', table: 'game_blocks' }, (change) => deleted.push(change.old.x as number));
  await subscribeChannel(channel);
  const end = await builder.client.from('game_blocks').delete().eq('x', LAND + 4).eq('y', ROW).select('x');
  assert.equal(end.data, [{ x: -27 }]);
  assert.equal(await row(), [-31, -30, -29, -28], 'honest: removing the end leaves the rest linked to land');
  const cut = await builder.client.from('game_blocks').delete().eq('x', LAND + 1).eq('y', ROW).select('x');
  assert.is(cut.error, null);
  assert.equal(cut.data, [{ x: -30 }], 'the request removed one block');
  assert.equal(await row(), [-31], 'and the two it left floating were gone when it answered');
  await waitFor(() => deleted.length >= 4, { message: 'four removals at the reader' });
  assert.equal([...deleted].sort((a, b) => a - b), [-30, -29, -28, -27], 'every client hears all three removals');
  await reader.client.removeChannel(channel);
});

test.run();
