/**
 * The client's network session (net/) in Node against the embedded server: refusals roll
 * back and are told in words, orphaned blocks go, presence and chat flow between two players.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { NetEvent } from '../../../components/network.js';
import { regionOf } from '../../../protocol/geometry.js';
import { regionTopic } from '../../../protocol/topics.js';
import { startHeadlessPlayer, type HeadlessPlayer } from '../../support/headless-player.js';
import { signInPlayer, startTestServer, type TestServer } from '../../support/harness.js';
import { sleep, waitFor } from '../../support/wait.js';

/** A headless player that also keeps every event it received. */
type Headless = HeadlessPlayer & { events: NetEvent[] };

async function headless(server: TestServer, name: string, x: number, y: number): Promise<Headless> {
  const events: NetEvent[] = [];
  const player = await startHeadlessPlayer(server, await signInPlayer(server), {
    name,
    pose: { x, y, facing: 1, moving: false },
    onEvent: (event) => events.push(event),
  });
  return Object.assign(player, { events });
}

/** A shore near spawn: land at tile (-31, -32), water from -30 eastward. */
const SHORE = { x: -31, y: -32 };

/**
 * Walks a headless player to (x, y) at a legal pace: 180 px a second, each step recorded by the
 * heartbeat the session sends when the player stops; resolves once the server has the position.
 */
async function walk(player: Headless, x: number, y: number): Promise<void> {
  for (;;) {
    const dx = x - player.pose.x;
    const dy = y - player.pose.y;
    const step = Math.min(1, 180 / Math.max(Math.hypot(dx, dy), 1));
    const next = { x: Math.round(player.pose.x + dx * step), y: Math.round(player.pose.y + dy * step) };
    player.pose.moving = true;
    await sleep(50); // kept: a legal pace
    Object.assign(player.pose, next, { moving: false });
    await waitFor(async () => {
      const { data } = await player.player.client.from('game_players').select('x, y').eq('player_id', player.player.address).single();
      return data?.x === next.x && data?.y === next.y;
    }, { message: `the server to record ${next.x},${next.y}` });
    if (next.x === x && next.y === y) return;
    await sleep(1000); // kept: stop heartbeats are at most one a second
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
  await waitFor(
    () => ann.session.onlinePlayers().includes(bob.player.address) && bob.session.onlinePlayers().includes(ann.player.address),
    { message: 'both players to know each other' },
  );
  assert.equal(ann.session.onlinePlayers(), [bob.player.address]);
  assert.equal(bob.session.onlinePlayers(), [ann.player.address]);
  const named = ann.events.find((e) => e.kind === 'playerUpsert' && e.id === bob.player.address);
  assert.is(named?.kind === 'playerUpsert' && named.name, 'Bob');
});

test('a refused placement is rolled back and the player is told why', async ({ ann }) => {
  ann.queues.outbox.push({ kind: 'placeBlock', x: 1, y: 1, blockType: 'stone', inventory: true });
  await waitFor(() => ann.notices.length > 0, { message: 'a notice' });
  assert.equal(ann.notices, ['Block Not Placed: Cannot build in spawn area - protected zone!']);
  assert.ok(ann.events.some((e) => e.kind === 'blockRefused' && e.action === 'place' && e.x === 1 && e.y === 1));
  assert.ok(ann.events.some((e) => e.kind === 'blockCleared' && e.x === 1 && e.y === 1));
  ann.notices.length = 0;
});

test('removing where no local block exists asks the server', async ({ ann, bob }) => {
  const { error } = await bob.player.client
    .from('game_blocks')
    .insert({ x: 8, y: 8, block_type: 'gold', player_id: bob.player.address, player_name: 'Bob' });
  assert.is(error, null);
  ann.queues.outbox.push({ kind: 'removeBlock', x: 8, y: 8, blockType: null });
  await waitFor(async () => {
    const { data } = await ann.player.client.from('game_blocks').select('x').eq('x', 8).eq('y', 8);
    return data?.length === 0;
  }, { message: 'the server row removed' });
});

test('a block on water needs a block beside it that leads to land', async ({ ann }) => {
  // The engine refuses it before sending (test/unit/systems/apply-builds.test.ts); sent anyway,
  // within reach, the server refuses it and the player is told in the same words.
  await walk(ann, SHORE.x * 32, SHORE.y * 32 + 16);
  ann.queues.outbox.push({ kind: 'placeBlock', x: SHORE.x + 4, y: SHORE.y, blockType: 'wood', inventory: true });
  await waitFor(() => ann.notices.length > 0, { message: 'a notice' });
  assert.equal(ann.notices, ['Block Not Placed: Blocks on water need a neighbouring block that leads to land.']);
  const { data } = await ann.player.client.from('game_blocks').select('x').eq('x', SHORE.x + 4);
  assert.equal(data, []);
  ann.notices.length = 0;
});

test('cutting a bridge removes the blocks left on water, for everyone, from one request', async ({ ann, bob }) => {
  await Promise.all([walk(ann, SHORE.x * 32, SHORE.y * 32 + 16), walk(bob, SHORE.x * 32 + 40, SHORE.y * 32 + 16)]);
  const bridge = [SHORE.x, SHORE.x + 1, SHORE.x + 2].map((x) => `${x},${SHORE.y}`);
  for (const x of [SHORE.x, SHORE.x + 1, SHORE.x + 2]) {
    ann.tiles.set(`${x},${SHORE.y}`, 'wood'); // the engine shows a placement at once
    ann.queues.outbox.push({ kind: 'placeBlock', x, y: SHORE.y, blockType: 'wood', inventory: true });
  }
  await waitFor(() => bridge.every((key) => bob.tiles.has(key)), { message: 'the bridge at Bob' });
  bob.tiles.delete(bridge[0]!);
  bob.queues.outbox.push({ kind: 'removeBlock', x: SHORE.x, y: SHORE.y, blockType: 'wood' });
  await waitFor(() => bridge.every((key) => !ann.tiles.has(key) && !bob.tiles.has(key)), { message: 'the bridge gone for both' });
  const { data } = await ann.player.client.from('game_blocks').select('x,y').eq('y', SHORE.y);
  assert.equal(data, []);
  assert.equal(ann.notices.concat(bob.notices), []);
});

test('a walk is heard as pose events with the sender\'s clock, the last where the walker stopped', async ({ ann, bob }) => {
  const heard = bob.events.filter((e): e is Extract<NetEvent, { kind: 'playerPose' }> => e.kind === 'playerPose' && e.id === ann.player.address);
  assert.ok(heard.length >= 5, `Bob heard ${heard.length} poses of Ann's walk`);
  assert.ok(heard.every((e) => Number.isFinite(e.t) && Math.abs(e.t - Date.now()) < 60_000), 'each pose carries the sender clock');
  assert.equal({ x: heard.at(-1)!.x, y: heard.at(-1)!.y }, { x: ann.pose.x, y: ann.pose.y });
  assert.ok(heard.every((e, i) => i === 0 || e.seq > heard[i - 1]!.seq), 'steps only grow');
});

test('a pose naming another wallet far from where it stands, or a wallet without presence, is not passed on', async ({ server, ann, bob }) => {
  const carol = await signInPlayer(server);
  const { rx, ry } = regionOf(ann.pose.x, ann.pose.y);
  const topic = regionTopic({ rx, ry });
  const channel = carol.client.channel(topic, { config: { private: true, broadcast: { self: false, ack: true } } });
  await new Promise<void>((resolve) => channel.subscribe(() => resolve()));
  const before = bob.events.length;
  const fake = { dx: 0, dy: 0, n: Number.MAX_SAFE_INTEGER - 1, f: 1, s: false, t: Date.now() };
  await channel.send({ type: 'broadcast', event: 'pose', payload: { ...fake, id: ann.player.address, x: ann.pose.x + 2000, y: ann.pose.y } });
  await channel.send({ type: 'broadcast', event: 'pose', payload: { ...fake, id: carol.address, x: ann.pose.x, y: ann.pose.y } });
  // Barrier: Ann's own next pose arrives behind them on the same channel.
  ann.pose.x += 30;
  await waitFor(() => bob.events.slice(before).some((e) => e.kind === 'playerPose' && e.id === ann.player.address), { message: 'Ann\'s pose at Bob' });
  const poses = bob.events.slice(before).filter((e) => e.kind === 'playerPose');
  assert.equal(poses.map((e) => e.kind === 'playerPose' && [e.id, e.x]), [[ann.player.address, ann.pose.x]]);
  assert.ok(!bob.session.onlinePlayers().includes(carol.address));
  await carol.client.removeChannel(channel);
});

test('the online count counts players who built or chatted, as soon as it sees them', async ({ ann, bob }) => {
  assert.is(ann.counts[0], 1, 'alone at start');
  // Both have built by now; each saw the other's block go in live, long before the 30 s refresh.
  await waitFor(() => ann.counts.at(-1) === 2 && bob.counts.at(-1) === 2, { message: 'both counts at 2' });
});

test('chat flows between sessions and a flood is told to slow down', async ({ ann }) => {
  const results: Array<string | null> = [];
  for (let i = 0; i < 7; i++) results.push(await ann.session.sendChat(`message ${i}`));
  assert.equal(results.slice(0, 5), [null, null, null, null, null]);
  assert.is(results[6], 'You are sending messages too fast. Slow down.');
});

test.run();
