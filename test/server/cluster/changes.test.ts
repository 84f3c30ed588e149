/**
 * Row changes and database broadcasts in a cluster (docs/cluster.md, "Row changes and database
 * broadcasts"): one node drains the queues under a lease and relays them on the bus; every other
 * node delivers them to its own subscribers, each change checked against the subscriber's own
 * policies, exactly once and in commit order; a killed drainer is replaced and nothing stops.
 * Players sign in on the node they use.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import type { RealtimeChannel, RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import { startCluster, type TestCluster } from '../../support/cluster.js';
import { metricValue } from '../../support/metrics.js';
import { signInPlayer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { joinRegion, subscribeChannel, userIdOf, type Joined } from '../../support/live.js';
import { blockRow, playerAtSpawn, tilesInViewOfSpawn } from '../../support/rules.js';
import { connectAsOperator } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';

/** A published table only the `reader` and the `writer` of a row may read: the probe of each subscriber's own policies. */
const NOTES_SQL = `
create table public.cluster_notes (
  id bigint generated always as identity primary key, reader uuid not null, writer uuid not null default auth.uid(), body text not null);
alter table public.cluster_notes enable row level security;
create policy "the reader and the writer read" on public.cluster_notes for select to authenticated
  using (reader = (select auth.uid()) or writer = (select auth.uid()));
create policy "signed-in users write their own" on public.cluster_notes for insert to authenticated with check (writer = (select auth.uid()));
grant select, insert on public.cluster_notes to authenticated;
alter publication supabase_realtime add table public.cluster_notes;
`;

/** A published table every signed-in user reads: its readers' verdicts depend on no claims. */
const POSTS_SQL = `
create table public.cluster_posts (id bigint generated always as identity primary key, body text not null);
alter table public.cluster_posts enable row level security;
create policy "signed-in users read" on public.cluster_posts for select to authenticated using (true);
create policy "signed-in users write" on public.cluster_posts for insert to authenticated with check (true);
grant select, insert on public.cluster_posts to authenticated;
alter publication supabase_realtime add table public.cluster_posts;
`;

const test = suite<{ cluster: TestCluster; operator: pg.Client }>('cluster changes');

test.before(async (ctx) => {
  ctx.cluster = await startCluster(2);
  ctx.operator = await connectAsOperator(ctx.cluster.nodes[0]!);
  await ctx.operator.query(NOTES_SQL);
  await ctx.operator.query(POSTS_SQL);
});

test.after(async ({ cluster, operator }) => {
  await operator?.end();
  await cluster?.close();
});

/** Whether `node` says it drains the cluster's queues (its `tessera_realtime_drainer` gauge). */
async function drains(node: TestServer): Promise<boolean> {
  return (await metricValue(node, 'tessera_realtime_drainer')) === 1;
}

/**
 * Subscribes `player` on `topic` to `event` changes of `table` (public), handing each to `onChange`;
 * retried until the node's catalogue knows the table, which the suite created.
 */
async function followTable(
  player: TestPlayer, topic: string, table: string, event: 'INSERT' | '*', onChange: (change: RealtimePostgresChangesPayload<Record<string, unknown>>) => void,
): Promise<RealtimeChannel> {
  return waitFor(async () => {
    const attempt = player.client.channel(topic).on('postgres_changes', { event, schema: 'public', table }, onChange);
    try {
      return await subscribeChannel(attempt);
    } catch {
      await player.client.removeChannel(attempt);
      return false;
    }
  }, { message: `${topic} subscribed`, timeout: 10_000 });
}

/** Follows the inserts of public.cluster_notes as `player` and collects their bodies. */
async function followNotes(player: TestPlayer, topic: string): Promise<{ channel: RealtimeChannel; bodies: string[] }> {
  const bodies: string[] = [];
  const channel = await followTable(player, topic, 'cluster_notes', 'INSERT', (change) => void bodies.push((change.new as { body: string }).body));
  return { channel, bodies };
}

/** Writes a note for `reader` through `writer`'s node. */
async function writeNote(writer: TestPlayer, reader: TestPlayer, body: string): Promise<void> {
  const { error } = await writer.client.from('cluster_notes').insert({ reader: await userIdOf(reader), body });
  assert.is(error, null, JSON.stringify(error));
}

/** Follows every change of public.cluster_posts as `player`: 'INSERT <body>' or 'DELETE <id>', in the order heard. */
async function followPosts(player: TestPlayer, topic: string): Promise<string[]> {
  const heard: string[] = [];
  await followTable(player, topic, 'cluster_posts', '*', (change) => {
    heard.push(change.eventType === 'DELETE' ? `DELETE ${(change.old as { id: number }).id}` : `${change.eventType} ${(change.new as { body: string }).body}`);
  });
  return heard;
}

/** Writes a post through `writer`'s node. */
async function writePost(writer: TestPlayer, body: string): Promise<void> {
  const { error } = await writer.client.from('cluster_posts').insert({ body });
  assert.is(error, null, JSON.stringify(error));
}

/** `node`'s checks of relayed changes answered by the drainer's verdicts and by its own database round trips. */
async function relayedChecks(node: TestServer): Promise<{ drainer: number; database: number }> {
  return {
    drainer: (await metricValue(node, 'tessera_realtime_relayed_checks_total{answered_by="drainer"}')) ?? NaN,
    database: (await metricValue(node, 'tessera_realtime_relayed_checks_total{answered_by="database"}')) ?? NaN,
  };
}

/** A tile and its 'x,y'. */
type Tile = { x: number; y: number; key: string };

/** The tiles the `blocks` broadcasts heard on a region set, in the order heard, as 'x,y'. */
const placedTiles = (region: Joined) => region.heard.flatMap((payload) => (payload.s as number[][]).map((tile) => `${tile[0]},${tile[1]}`));

test('node-1 drains; a row change written through node-1 reaches a reader on node-2 once, and one it may not read never does', async ({ cluster }) => {
  const [one, two] = cluster.nodes as [TestServer, TestServer];
  await waitFor(() => drains(one), { message: 'node-1 draining', interval: 100 });
  assert.is(await drains(two), false);
  const [ann, bob] = await Promise.all([signInPlayer(one), signInPlayer(two)]);
  const notes = await followNotes(bob, 'notes-on-node-2');
  await writeNote(ann, ann, 'for ann');
  await writeNote(ann, bob, 'for bob');
  await writeNote(ann, bob, 'last');
  // One lane, in commit order: once 'last' is heard, whatever came before it has been.
  await waitFor(() => notes.bodies.includes('last'), { message: "bob's notes" });
  assert.equal(notes.bodies, ['for bob', 'last']);
  await bob.client.removeAllChannels();
});

test("a change every signed-in reader may read is judged on node-2 by node-1's verdict once node-1 has such a reader, the database asked only before", async ({ cluster, operator }) => {
  const [one, two] = cluster.nodes as [TestServer, TestServer];
  assert.ok(await drains(one));
  const [ann, bob] = await Promise.all([signInPlayer(one), signInPlayer(two)]);
  const heardOnTwo = await followPosts(bob, 'posts-on-node-2');

  // No reader of the table on node-1: node-1 checks nothing, so node-2 asks its database.
  const before = await relayedChecks(two);
  await writePost(ann, 'first');
  await waitFor(() => heardOnTwo.includes('INSERT first'), { message: 'the first post on node-2' });
  const alone = await relayedChecks(two);
  assert.ok(alone.database > before.database, `database checks ${before.database} -> ${alone.database}`);
  assert.is(alone.drainer, before.drainer);

  // A reader of the same role on node-1: its verdicts travel with the changes, node-2 asks nothing.
  const heardOnOne = await followPosts(ann, 'posts-on-node-1');
  // A row inserted and deleted in one transaction is gone when drained: no reader is sent the insert.
  await operator.query('begin');
  const { rows } = await operator.query<{ id: string }>(`insert into public.cluster_posts (body) values ('gone') returning id`);
  await operator.query('delete from public.cluster_posts where id = $1', [rows[0]!.id]);
  await operator.query('commit');
  await writePost(ann, 'second');
  await waitFor(() => heardOnTwo.includes('INSERT second') && heardOnOne.includes('INSERT second'), { message: 'the second post on both nodes' });
  const shared = await relayedChecks(two);
  assert.ok(shared.drainer > alone.drainer, `drainer verdicts ${alone.drainer} -> ${shared.drainer}`);
  assert.is(shared.database, alone.database);
  const expected = [`DELETE ${rows[0]!.id}`, 'INSERT second'];
  assert.equal(heardOnOne, expected);
  assert.equal(heardOnTwo, ['INSERT first', ...expected]);
  for (const player of [ann, bob]) await player.client.removeAllChannels();
});

test('200 block placements through node-1 reach a member on each node once each, in commit order', async ({ cluster }) => {
  const [one, two] = cluster.nodes as [TestServer, TestServer];
  // Five builders, 40 placements each: within the blocks burst of each.
  const builders = await Promise.all(Array.from({ length: 5 }, () => playerAtSpawn(one)));
  const [carol, dave] = await Promise.all([signInPlayer(one), signInPlayer(two)]);
  const near = await joinRegion(carol.client, 'blocks:0:0');
  const far = await joinRegion(dave.client, 'blocks:0:0');
  const tiles = tilesInViewOfSpawn().slice(0, 200);
  for (const [i, tile] of tiles.entries()) {
    const builder = builders[i % builders.length]!;
    const { error } = await builder.client.from('game_blocks').insert(blockRow(builder, tile.x, tile.y));
    assert.is(error, null, JSON.stringify(error));
  }
  const expected = tiles.map((tile) => `${tile.x},${tile.y}`);
  const last = expected.at(-1)!;
  await waitFor(() => placedTiles(near).includes(last) && placedTiles(far).includes(last), { message: 'the last placement on both nodes', timeout: 15_000 });
  assert.equal(placedTiles(near), expected);
  assert.equal(placedTiles(far), expected);
  for (const player of [...builders, carol, dave]) await player.client.removeAllChannels();
});

/** The nodes that follow public.cluster_notes in realtime.subscribed. */
async function notesFollowers(operator: pg.Client): Promise<string[]> {
  const { rows } = await operator.query<{ node: string }>(`select node from realtime.subscribed where rel = 'public.cluster_notes'::regclass order by node`);
  return rows.map((row) => row.node);
}

test('the drainer killed: another node takes the lease, changes and block broadcasts keep reaching both other nodes, and the tables it followed are let go', async ({ cluster, operator }) => {
  const [one, two] = cluster.nodes as [TestServer, TestServer];
  const three = await cluster.addNode();
  const [builder, erin, frank, gina] = await Promise.all([playerAtSpawn(two), signInPlayer(two), signInPlayer(three), signInPlayer(one)]);
  const regions = [await joinRegion(erin.client, 'blocks:0:0'), await joinRegion(frank.client, 'blocks:0:0')];
  const notes = await followNotes(frank, 'notes-on-node-3');
  await followNotes(gina, 'notes-on-node-1');
  assert.equal(await notesFollowers(operator), ['node-1', 'node-3']);
  assert.ok(await drains(one));
  // Two tiles the placements of the test before left free.
  const [before, after] = tilesInViewOfSpawn().slice(300, 302).map((tile) => ({ ...tile, key: `${tile.x},${tile.y}` })) as [Tile, Tile];

  const place = async ({ x, y }: Tile) => {
    const { error } = await builder.client.from('game_blocks').insert(blockRow(builder, x, y));
    assert.is(error, null, JSON.stringify(error));
  };
  await place(before);
  await waitFor(() => regions.every((region) => placedTiles(region).includes(before.key)), { message: 'the placement before the kill' });

  await one.kill();
  const killedAt = performance.now();
  await waitFor(async () => (await drains(two)) || (await drains(three)), { message: 'a new drainer', timeout: 10_000, interval: 100 });
  const takenIn = performance.now() - killedAt;
  assert.ok(takenIn < 5000, `lease taken over in ${Math.round(takenIn)} ms`);

  await place(after);
  await writeNote(builder, frank, 'after the kill');
  await waitFor(() => regions.every((region) => placedTiles(region).includes(after.key)), { message: 'the placement after the kill', timeout: 10_000 });
  await waitFor(() => notes.bodies.includes('after the kill'), { message: 'the note after the kill', timeout: 10_000 });
  for (const region of regions) assert.equal(placedTiles(region), [before.key, after.key]);
  assert.equal(notes.bodies, ['after the kill']);
  // The others count node-1 as down after NODE_DOWN_MS of silence and remove its rows.
  await waitFor(async () => (await notesFollowers(operator)).length === 1, { message: "node-1's rows removed", timeout: 15_000, interval: 200 });
  assert.equal(await notesFollowers(operator), ['node-3']);
  for (const player of [builder, erin, frank]) await player.client.removeAllChannels();
});

test.run();
