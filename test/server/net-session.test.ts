/**
 * The client's network session (net/) in Node against the embedded server: refusals roll
 * back and are told in words, orphaned blocks go, presence and chat flow between two players.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { NetEvent } from '../../components/network.js';
import { startHeadlessPlayer, type HeadlessPlayer } from './headless-player.js';
import { signInPlayer, startTestServer, type TestServer } from './harness.js';

/** A headless player that also keeps every event it received. */
type Headless = HeadlessPlayer & { events: NetEvent[] };

async function headless(server: TestServer, name: string, x: number, y: number): Promise<Headless> {
  const events: NetEvent[] = [];
  const player = await startHeadlessPlayer(server, await signInPlayer(server), {
    name,
    pose: { x, y, facing: 1, moving: false },
    // Water is every tile with x >= 100, so support can be tested at a known shore.
    isWater: (tileX) => tileX >= 100,
    onEvent: (event) => events.push(event),
  });
  return Object.assign(player, { events });
}

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeout = 5000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const test = suite<{ server: TestServer; ann: Headless; bob: Headless }>('net session');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.ann = await headless(ctx.server, 'Ann', 16, 16);
  ctx.bob = await headless(ctx.server, 'Bob', 40, 16);
});

test.after(async ({ ann, bob, server }) => {
  await Promise.all([ann.session.close(), bob.session.close()]);
  await server.stop();
});

test('each session sees the other player from presence', async ({ ann, bob }) => {
  // Whoever started first hears the other live; the other loads it at start.
  await eventually(
    () => ann.session.onlinePlayers().includes(bob.player.address) && bob.session.onlinePlayers().includes(ann.player.address),
    'both players to know each other',
  );
  assert.equal(ann.session.onlinePlayers(), [bob.player.address]);
  assert.equal(bob.session.onlinePlayers(), [ann.player.address]);
  const named = ann.events.find((e) => e.kind === 'playerUpsert' && e.id === bob.player.address);
  assert.is(named?.kind === 'playerUpsert' && named.name, 'Bob');
});

test('a refused placement is rolled back and the player is told why', async ({ ann }) => {
  ann.queues.outbox.push({ kind: 'placeBlock', x: 1, y: 1, blockType: 'stone' });
  await eventually(() => ann.notices.length > 0, 'a notice');
  assert.equal(ann.notices, ['Block Not Placed: Cannot build in spawn area - protected zone!']);
  assert.ok(ann.events.some((e) => e.kind === 'blockRefused' && e.action === 'place' && e.x === 1 && e.y === 1));
  assert.ok(ann.events.some((e) => e.kind === 'blockCleared' && e.x === 1 && e.y === 1));
  ann.notices.length = 0;
});

test('a block on water needs a block beside it that leads to land', async ({ ann }) => {
  ann.queues.outbox.push({ kind: 'placeBlock', x: 105, y: 40, blockType: 'wood' });
  await eventually(() => ann.notices.length > 0, 'a notice');
  assert.equal(ann.notices, ['Block Not Placed: Blocks on water need a neighbouring block that leads to land.']);
  const { data } = await ann.player.client.from('game_blocks').select('x').eq('x', 105);
  assert.equal(data, []);
  ann.notices.length = 0;
});

test('cutting a bridge removes the blocks left on water, for everyone', async ({ ann, bob }) => {
  for (const x of [99, 100, 101]) {
    ann.tiles.set(`${x},50`, 'wood'); // the engine shows a placement at once
    ann.queues.outbox.push({ kind: 'placeBlock', x, y: 50, blockType: 'wood' });
  }
  await eventually(() => ['99,50', '100,50', '101,50'].every((key) => bob.tiles.has(key)), 'the bridge at Bob');
  bob.tiles.delete('99,50');
  bob.queues.outbox.push({ kind: 'removeBlock', x: 99, y: 50, blockType: 'wood' });
  await eventually(() => ann.tiles.size === 0 && bob.tiles.size === 0, 'the bridge gone for both');
  const { data } = await ann.player.client.from('game_blocks').select('x,y').eq('y', 50);
  assert.equal(data, []);
  assert.equal(ann.notices.concat(bob.notices), []);
});

test('removing where no local block exists asks the server', async ({ ann, bob }) => {
  const { error } = await bob.player.client
    .from('game_blocks')
    .insert({ x: 20, y: 20, block_type: 'gold', player_id: bob.player.address, player_name: 'Bob' });
  assert.is(error, null);
  ann.queues.outbox.push({ kind: 'removeBlock', x: 20, y: 20, blockType: null });
  await eventually(async () => {
    const { data } = await ann.player.client.from('game_blocks').select('x').eq('x', 20).eq('y', 20);
    return data?.length === 0;
  }, 'the server row removed');
});

test('the online count counts players who built or chatted, as soon as it sees them', async ({ ann, bob }) => {
  assert.is(ann.counts[0], 1, 'alone at start');
  // Both have built by now; each saw the other's block go in live, long before the 30 s refresh.
  await eventually(() => ann.counts.at(-1) === 2 && bob.counts.at(-1) === 2, 'both counts at 2');
});

test('chat flows between sessions and a flood is told to slow down', async ({ ann }) => {
  const results: Array<string | null> = [];
  for (let i = 0; i < 7; i++) results.push(await ann.session.sendChat(`message ${i}`));
  assert.equal(results.slice(0, 5), [null, null, null, null, null]);
  assert.is(results[6], 'You are sending messages too fast. Slow down.');
});

test.run();
