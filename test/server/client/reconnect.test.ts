/**
 * The headless player (the real net/ code in Node) when its connection drops mid-game: a server
 * restarted on the same PORT and DATA_DIR, and a network blip of one player. It says so
 * (`restoring`), keeps the edits made meanwhile and sends them once back, rolls back a real
 * refusal, catches up the changes it missed, and is back in the world (presence written again,
 * channels joined, the view read again: `online`) within 5 s of the server being reachable.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import type { NetEvent } from '../../../components/network.js';
import { isSpawnTile, isWaterTile, WORLD_SEED } from '../../../components/terrain.js';
import type { ConnectionState } from '../../../net/connection.js';
import { freePort } from '../../../server/db/cluster.js';
import { startHeadlessPlayer, type HeadlessPlayer } from '../../support/headless-player.js';
import { createTestWallet, makeDataDir, removeDataDir, signInPlayer, startTestServer, type ClientWiring, type TestServer } from '../../support/harness.js';
import { waitFor } from '../../support/wait.js';

/** What the players' networks let through, and the writes that failed for want of one. */
interface Network {
  wiring: ClientWiring;
  /** Requests (method and path) that failed without an answer. */
  failed: string[];
  /** Cuts the network: open sockets drop, new ones and every request fail. */
  cut(): void;
  mend(): void;
}

/** A network the test can cut, as a blip would. */
function network(): Network {
  let down = false;
  const failed: string[] = [];
  const sockets = new Set<WebSocket>();
  class Transport extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      // Port 1 refuses: a socket opened while the network is cut fails as a real one would.
      if (down) args[0] = 'ws://127.0.0.1:1/';
      super(...args);
      sockets.add(this);
      this.once('close', () => sockets.delete(this));
    }
  }
  const fetching: typeof fetch = async (input, init) => {
    try {
      if (down) throw new TypeError('fetch failed');
      return await fetch(input, init);
    } catch (error) {
      failed.push(`${init?.method ?? 'GET'} ${new URL(String(input instanceof Request ? input.url : input)).pathname}`);
      throw error;
    }
  };
  return {
    wiring: { fetch: fetching, transport: Transport as typeof WebSocket },
    failed,
    cut() {
      down = true;
      for (const socket of sockets) socket.terminate();
    },
    mend() {
      down = false;
    },
  };
}

/** A headless player with its network, the events and connection states it saw. */
type Player = HeadlessPlayer & { net: Network; events: NetEvent[]; states: ConnectionState[] };

async function player(server: TestServer, name: string, x: number): Promise<Player> {
  const net = network();
  const events: NetEvent[] = [];
  const states: ConnectionState[] = [];
  const signedIn = await signInPlayer(server, createTestWallet(), net.wiring);
  const headless = await startHeadlessPlayer(server, signedIn, {
    name,
    pose: { x, y: 16, facing: 1, moving: false },
    onEvent: (event) => events.push(event),
    onConnection: (state) => states.push(state),
  });
  return Object.assign(headless, { net, events, states });
}

/** Land tiles east of spawn, in everyone's view, none of them in the spawn area. */
const LAND = Array.from({ length: 24 }, (_, i) => ({ x: 4 + (i % 6), y: -2 + Math.floor(i / 6) }))
  .filter(({ x, y }) => !isSpawnTile(x, y) && !isWaterTile(x, y, WORLD_SEED));

/** The block the database holds at (x, y), as `type by owner`, or null. */
async function stored(p: Player, { x, y }: { x: number; y: number }): Promise<string | null> {
  const { data, error } = await p.player.client.from('game_blocks').select('block_type, player_id').eq('x', x).eq('y', y).maybeSingle();
  if (error) throw new Error(error.message);
  return data ? `${data.block_type} by ${data.player_id}` : null;
}

/** Places a block as the engine does: shown at once, then handed to the outbox. */
function place(p: Player, { x, y }: { x: number; y: number }, blockType = 'stone'): void {
  p.tiles.set(`${x},${y}`, blockType);
  p.queues.outbox.push({ kind: 'placeBlock', x, y, blockType, inventory: true });
}

interface Ctx {
  server: TestServer;
  port: number;
  dataDir: string;
  ann: Player;
  bob: Player;
}

const test = suite<Ctx>('reconnect');

test.before(async (ctx) => {
  assert.ok(LAND.length >= 6, 'enough land east of spawn');
  [ctx.port, ctx.dataDir] = await Promise.all([freePort(), makeDataDir()]);
  ctx.server = await startTestServer(ctx.dataDir, { PORT: String(ctx.port) });
  ctx.ann = await player(ctx.server, 'Ann', 16);
  ctx.bob = await player(ctx.server, 'Bob', 48);
  await waitFor(() => [ctx.ann, ctx.bob].every((p) => p.session.connection() === 'online' && p.session.onlinePlayers().length === 1), {
    message: 'both players online and known to each other',
  });
});

test.after(async ({ ann, bob, server, dataDir }) => {
  await Promise.all([ann?.session.close(), bob?.session.close()]);
  await server?.stop();
  if (dataDir) await removeDataDir(dataDir);
});

test('a server restart: restoring, the block placed meanwhile is sent once back, back in the world within 5 s', async (ctx) => {
  const { ann, bob } = ctx;
  const [spot, later] = [LAND[0]!, LAND[1]!];
  await ctx.server.stop();
  await waitFor(() => ann.session.connection() === 'restoring' && bob.session.connection() === 'restoring', { message: 'both restoring' });
  place(ann, spot);
  const placedAt = ann.events.length;
  await waitFor(() => ann.net.failed.includes('POST /rest/v1/game_blocks'), { message: 'the placement tried while the server is gone' });
  ctx.server = await startTestServer(ctx.dataDir, { PORT: String(ctx.port) });
  const reachable = performance.now();
  await waitFor(() => ann.session.connection() === 'online', { timeout: 10_000, message: 'Ann back online' });
  const backMs = performance.now() - reachable;
  console.log(`back in the world ${Math.round(backMs)} ms after the server answered again`);
  assert.ok(backMs < 5000, `back within 5 s (${Math.round(backMs)} ms)`);
  assert.equal(ann.states, ['online', 'restoring', 'online']);
  const shownWithout = ann.events.slice(placedAt).filter((e) => e.kind === 'areaLoaded' && e.x <= spot.x && spot.x < e.x + e.width && e.y <= spot.y && spot.y < e.y + e.height
    && !e.blocks.some((b) => b.x === spot.x && b.y === spot.y));
  assert.equal(shownWithout, [], 'the view read again shows the kept block');
  await waitFor(async () => (await stored(ann, spot)) !== null, { message: 'the kept placement stored' });
  assert.is(await stored(ann, spot), `stone by ${ann.player.address}`);
  assert.is(ann.tiles.get(`${spot.x},${spot.y}`), 'stone');
  assert.equal(ann.notices, []);
  assert.not.ok(ann.events.some((e) => e.kind === 'blockRefused'), 'nothing rolled back');
  // Presence written again and the channels joined: Bob's new block and his steps reach Ann live.
  const { data: row } = await bob.player.client.from('game_players').select('last_seen').eq('player_id', ann.player.address).single();
  assert.ok(Date.parse(row!.last_seen as string) >= Date.now() - 10_000, 'Ann\'s presence row written again');
  await waitFor(() => bob.session.connection() === 'online', { message: 'Bob back online' });
  place(bob, later, 'wood');
  await waitFor(() => ann.tiles.get(`${later.x},${later.y}`) === 'wood', { message: 'Bob\'s block heard live by Ann' });
  const posesBefore = ann.posesHeard;
  bob.pose.moving = true;
  await waitFor(() => ann.posesHeard > posesBefore, { message: 'Bob\'s pose heard by Ann' });
  bob.pose.moving = false;
  assert.equal(ann.session.onlinePlayers(), [bob.player.address]);
});

test('a network blip: changes missed meanwhile are caught up, the kept edit sent, a real refusal still rolled back', async ({ ann, bob }) => {
  const [kept, missed, removedMeanwhile] = [LAND[2]!, LAND[3]!, LAND[0]!];
  ann.states.length = 0;
  const failedBefore = ann.net.failed.length;
  ann.net.cut();
  await waitFor(() => ann.session.connection() === 'restoring', { message: 'Ann restoring' });
  place(ann, kept, 'brick');
  ann.tiles.set('1,1', 'stone');
  ann.queues.outbox.push({ kind: 'placeBlock', x: 1, y: 1, blockType: 'stone', inventory: true });
  await waitFor(() => ann.net.failed.slice(failedBefore).includes('POST /rest/v1/game_blocks'), { message: 'the placement tried while cut' });
  // Meanwhile Bob builds and removes Ann's block: Ann cannot hear it.
  const { error } = await bob.player.client.from('game_blocks').insert({ x: missed.x, y: missed.y, block_type: 'gold', player_id: bob.player.address, player_name: 'Bob' });
  assert.is(error, null);
  bob.tiles.delete(`${removedMeanwhile.x},${removedMeanwhile.y}`);
  bob.queues.outbox.push({ kind: 'removeBlock', x: removedMeanwhile.x, y: removedMeanwhile.y, blockType: 'stone' });
  await waitFor(async () => (await stored(bob, removedMeanwhile)) === null, { message: 'Ann\'s block removed by Bob' });
  assert.is(ann.tiles.get(`${missed.x},${missed.y}`), undefined, 'not heard while cut');
  assert.is(ann.tiles.get(`${removedMeanwhile.x},${removedMeanwhile.y}`), 'stone', 'not heard while cut');
  ann.net.mend();
  const mended = performance.now();
  await waitFor(() => ann.session.connection() === 'online', { timeout: 10_000, message: 'Ann back online' });
  const backMs = performance.now() - mended;
  console.log(`back in the world ${Math.round(backMs)} ms after the network came back`);
  assert.ok(backMs < 5000, `back within 5 s (${Math.round(backMs)} ms)`);
  assert.equal(ann.states, ['restoring', 'online']);
  assert.is(ann.tiles.get(`${missed.x},${missed.y}`), 'gold', 'the missed block caught up');
  assert.is(ann.tiles.get(`${removedMeanwhile.x},${removedMeanwhile.y}`), undefined, 'the missed removal caught up');
  await waitFor(async () => (await stored(ann, kept)) !== null, { message: 'the kept placement stored' });
  assert.is(await stored(ann, kept), `brick by ${ann.player.address}`);
  await waitFor(() => ann.notices.length === 1, { message: 'the refusal told' });
  assert.equal(ann.notices, ['Block Not Placed: Cannot build in spawn area - protected zone!']);
  assert.ok(ann.events.some((e) => e.kind === 'blockRefused' && e.x === 1 && e.y === 1), 'the spawn placement rolled back');
  assert.is(ann.tiles.get('1,1'), undefined);
  assert.is(await stored(ann, { x: 1, y: 1 }), null);
});

test.run();
