/**
 * What a write costs Realtime, and what cannot hold it up (server/realtime/capture.ts, lane.ts):
 * a published table is captured for postgres_changes only while someone follows it, database
 * broadcasts are drained apart from row changes, and a statement changing more than
 * MAX_CHANGES_PER_STATEMENT rows hands only that many to postgres_changes (the rest counted in
 * tessera_realtime_changes_dropped_total), so a player's block heard right after an owner's
 * 200,000-block statement arrives at once. A statement that only updated rows says so in its
 * NOTIFY, and its changes may wait for the next drain (UPDATE_GAP_MS).
 */
import { metricValue } from '../../support/metrics.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import type { RealtimeChannel } from '@supabase/supabase-js';
import { CHANGES_CHANNEL } from '../../../server/realtime/capture.js';
import { UPDATES_PAYLOAD } from '../../../server/realtime/lane.js';
import { MAX_CHANGES_PER_STATEMENT } from '../../../server/realtime/limits.js';
import { connectAsOperator } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';
import { startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { joinRegion, subscribeChannel, type Joined } from '../../support/live.js';
import { blockRow, playerAtSpawn } from '../../support/rules.js';

const test = suite<{ server: TestServer; operator: pg.Client; ann: TestPlayer; bob: TestPlayer; region: Joined }>('realtime lanes');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.operator = await connectAsOperator(ctx.server);
  [ctx.ann, ctx.bob] = await Promise.all([playerAtSpawn(ctx.server, 'Ann'), playerAtSpawn(ctx.server, 'Bob')]);
  ctx.region = await joinRegion(ctx.ann.client, 'blocks:0:0');
});

test.after(async ({ server, operator, ann, bob }) => {
  for (const player of [ann, bob]) await player.client.removeAllChannels();
  await operator.end();
  await server.stop();
});

/** The rows one owner's placement at (x, y) writes to the capture queues and realtime.messages, counted inside its transaction, then rolled back. */
async function rowsOfOnePlacement(operator: pg.Client, x: number, y: number): Promise<{ changes: number; broadcasts: number; messages: number }> {
  await operator.query('begin');
  try {
    const count = async (table: string) => Number((await operator.query(`select count(*)::int as n from ${table}`)).rows[0].n);
    const before = { changes: await count('realtime.changes'), broadcasts: await count('realtime.broadcasts'), messages: await count('realtime.messages') };
    await operator.query(`insert into public.game_blocks (x, y, block_type, player_id, player_name) values ($1, $2, 'stone', 'Owner', 'Owner')`, [x, y]);
    return {
      changes: (await count('realtime.changes')) - before.changes,
      broadcasts: (await count('realtime.broadcasts')) - before.broadcasts,
      messages: (await count('realtime.messages')) - before.messages,
    };
  } finally {
    await operator.query('rollback');
  }
}

/** The `blocks` broadcasts heard that clear or set tile (x, y). */
function heardTile(region: Joined, x: number, y: number, placed: boolean): number {
  return region.heard.filter((payload) => {
    const tiles = (placed ? payload.s : payload.c) as number[][] | undefined;
    return tiles?.some((tile) => tile[0] === x && tile[1] === y);
  }).length;
}

/** Subscribes `player` to the changes of game_blocks (every event, optionally filtered) and collects them as 'EVENT x,y'. */
async function followBlocks(player: TestPlayer, topic: string, filter?: string): Promise<{ channel: RealtimeChannel; seen: string[] }> {
  const seen: string[] = [];
  const channel = player.client.channel(topic).on(
    'postgres_changes',
    { event: '*', schema: 'public', table: 'game_blocks', ...(filter ? { filter } : {}) },
    (change) => {
      const row = (change.eventType === 'DELETE' ? change.old : change.new) as { x: number; y: number };
      seen.push(`${change.eventType} ${row.x},${row.y}`);
    },
  );
  await subscribeChannel(channel);
  return { channel, seen };
}

async function droppedChanges(server: TestServer): Promise<number> {
  return (await metricValue(server, 'tessera_realtime_changes_dropped_total'))!;
}

test('nobody follows game_blocks: a placement captures no row change, and the block is still heard on its region', async ({ operator, ann, region }) => {
  assert.equal((await operator.query('select rel from realtime.subscribed')).rows, []);
  assert.equal(await rowsOfOnePlacement(operator, 3000, 3000), { changes: 0, broadcasts: 1, messages: 1 });
  const { error } = await ann.client.from('game_blocks').insert(blockRow(ann, 5, 5));
  assert.is(error, null, JSON.stringify(error));
  await waitFor(() => heardTile(region, 5, 5, true) === 1, { message: 'the block on blocks:0:0' });
  assert.is(Number((await operator.query(`select count(*)::int as n from realtime.changes`)).rows[0].n), 0);
});

test('a postgres_changes subscriber of game_blocks has it captured and hears the placement; after it leaves, nothing is captured', async ({ operator, ann, bob }) => {
  const follower = await followBlocks(bob, 'follow-blocks');
  const [{ oid }] = (await operator.query(`select 'public.game_blocks'::regclass::oid::int as oid`)).rows;
  assert.equal((await operator.query('select rel::int from realtime.subscribed')).rows, [{ rel: oid }]);
  assert.equal(await rowsOfOnePlacement(operator, 3000, 3000), { changes: 1, broadcasts: 1, messages: 1 });
  const { error } = await ann.client.from('game_blocks').insert(blockRow(ann, 6, 5));
  assert.is(error, null, JSON.stringify(error));
  await waitFor(() => follower.seen.includes('INSERT 6,5'), { message: 'the change heard by the follower' });
  assert.equal(follower.seen, ['INSERT 6,5']);
  await bob.client.removeChannel(follower.channel);
  await waitFor(async () => (await operator.query('select rel from realtime.subscribed')).rows.length === 0, { message: 'game_blocks no longer followed' });
  assert.equal(await rowsOfOnePlacement(operator, 3000, 3000), { changes: 0, broadcasts: 1, messages: 1 });
});

test('a statement that only updated rows wakes the drain as updates; inserts and deletes as they are; a statement that changed nothing not at all', async ({ server, operator, bob }) => {
  const follower = await followBlocks(bob, 'follow-wakes', 'x=eq.4000');
  const listener = await connectAsOperator(server);
  const payloads: string[] = [];
  listener.on('notification', (note) => {
    if (note.channel === CHANGES_CHANNEL) payloads.push(note.payload ?? '');
  });
  await listener.query(`listen ${CHANGES_CHANNEL}`);
  const upsert = (type: string) =>
    operator.query(
      `insert into public.game_blocks (x, y, block_type, player_id, player_name) values (4000, 4000, $1, 'Owner', 'Owner')
       on conflict (x, y) do update set block_type = excluded.block_type`,
      [type],
    );
  try {
    await upsert('stone');
    await waitFor(() => follower.seen.length === 1 && payloads.length === 1, { message: 'the insert heard' });
    assert.equal(payloads, ['']);
    // An upsert that found its row: the UPDATE half wakes the drain, the empty INSERT half does not.
    await upsert('wood');
    await waitFor(() => follower.seen.length === 2 && payloads.length >= 2, { message: 'the update heard' });
    assert.equal(payloads, ['', UPDATES_PAYLOAD]);
    await operator.query('delete from public.game_blocks where x = 4001');
    await operator.query('delete from public.game_blocks where x = 4000');
    await waitFor(() => follower.seen.length === 3 && payloads.length >= 3, { message: 'the delete heard' });
    assert.equal(payloads, ['', UPDATES_PAYLOAD, '']);
    assert.equal(follower.seen, ['INSERT 4000,4000', 'UPDATE 4000,4000', 'DELETE 4000,4000']);
  } finally {
    await listener.end();
    await bob.client.removeChannel(follower.channel);
  }
});

test("an owner's 200,000-block statement: a player's removal right after it is heard at once; past 10,000 its changes are counted, not captured", async ({ server, operator, ann, bob, region }) => {
  // Bob follows game_blocks near spawn only: the flood is captured (and bounded) but not sent to him.
  const follower = await followBlocks(bob, 'follow-near', 'x=lt.100');
  const droppedBefore = await droppedChanges(server);
  await operator.query(
    `insert into public.game_blocks (x, y, block_type, player_id, player_name)
     select x, y, 'stone', 'Owner', 'Owner' from generate_series(1000, 1999) x, generate_series(1000, 1199) y`,
  );
  const removedAt = performance.now();
  const { error } = await ann.client.from('game_blocks').delete().eq('x', 5).eq('y', 5);
  assert.is(error, null, JSON.stringify(error));
  await waitFor(() => heardTile(region, 5, 5, false) === 1, { message: 'the removal on blocks:0:0', timeout: 5000 });
  await waitFor(() => follower.seen.includes('DELETE 5,5'), { message: 'the removal heard by the follower', timeout: 5000 });
  const heardIn = performance.now() - removedAt;
  assert.ok(heardIn < 5000, `heard in ${Math.round(heardIn)} ms`);
  assert.equal(follower.seen, ['DELETE 5,5']);
  await waitFor(async () => (await droppedChanges(server)) - droppedBefore === 200_000 - MAX_CHANGES_PER_STATEMENT, { message: 'the flood counted' });
  await waitFor(() => server.output().includes(`realtime: 190000 row changes not captured: past ${MAX_CHANGES_PER_STATEMENT} of one statement`), { message: 'the log line' });

  // An update statement is bounded the same way: 12,000 rows, 2,000 past the bound.
  await operator.query(`update public.game_blocks set block_type = 'wood' where x between 1000 and 1059 and y between 1000 and 1199`);
  await waitFor(async () => (await droppedChanges(server)) - droppedBefore === 190_000 + 2000, { message: 'the update counted' });
  await bob.client.removeChannel(follower.channel);
});

test.run();
