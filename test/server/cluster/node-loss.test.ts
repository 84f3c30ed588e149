/**
 * Losing a node loses nothing (docs/cluster.md, "Losing a node, losing Redis"): three nodes on
 * one PostgreSQL of their own and one Redis behind docs/proxy/nginx-cluster.conf, and three
 * headless players (the real net/ code) connected through nginx, one socket on each node,
 * walking, building and chatting. The node that drains the change queues and holds a player's
 * socket is killed (SIGKILL): its player is back in the world through nginx within 5 s, every
 * placement and chat line that was answered with a success is in the database, the others never
 * see it leave, and its next block reaches them. Then Redis restarts under the players: every
 * node keeps serving its own, and what was built meanwhile reaches everyone once it is back.
 * Skipped where nginx or openssl is not installed (.ci/run installs nginx).
 */
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { NetEvent } from '../../../components/network.js';
import { isSpawnTile, isWaterTile, WORLD_SEED } from '../../../components/terrain.js';
import type { ConnectionState } from '../../../net/connection.js';
import { freePort } from '../../../server/db/cluster.js';
import { CLUSTER_SITE_URL, startCluster, type TestCluster } from '../../support/cluster.js';
import { startHeadlessPlayer, type HeadlessPlayer } from '../../support/headless-player.js';
import { createTestWallet, signInPlayer, type TestServer } from '../../support/harness.js';
import { nginxInstalled, proxySite, startNginx, type TestNginx } from '../../support/nginx.js';
import { waitFor } from '../../support/wait.js';

/** The node lines of the file's upstream, each replaced by one of the test's nodes. */
const UPSTREAM_NODES = /^ {4}server 127\.0\.0\.1:517\d max_fails=2 fail_timeout=10s;\n/gm;
const NODE_ENV = { HOST: '127.0.0.1', TRUSTED_PROXIES: '127.0.0.1' };
/** Between a player's placements and between its chat lines (within the write budgets of docs/rules.md). */
const PLACE_EVERY_MS = 350;
const CHAT_EVERY_MS = 2500;

/** What one player sent and was answered with a success (2xx). */
interface Acked {
  blocks: string[];
  chat: string[];
  /** Its requests not yet answered. */
  inFlight: number;
}

/** A headless player with what it was answered, what it heard and the states its connection went through (with when). */
type Player = HeadlessPlayer & { name: string; acked: Acked; events: NetEvent[]; states: { state: ConnectionState; at: number }[]; lane: { x: number; y: number }[] };

interface Ctx {
  cluster: TestCluster;
  nginx: TestNginx;
  operator: pg.Client;
  players: Player[];
  /** The node holding each player's socket, by player name. */
  nodeOf: Map<string, TestServer>;
  stopActivity?: () => void;
}

const test = suite<Ctx>('node loss');
const installed = nginxInstalled('node loss');

/** Land tiles in everyone's view, off spawn and water, dealt to the players in turn. */
const LAND = Array.from({ length: 18 * 13 }, (_, i) => ({ x: (i % 18 < 9 ? -12 : -5) + (i % 18), y: -6 + Math.floor(i / 18) }))
  .filter(({ x, y }) => !isSpawnTile(x, y) && !isWaterTile(x, y, WORLD_SEED));

const nodeName = (cluster: TestCluster, node: TestServer) => `node-${cluster.nodes.indexOf(node) + 1}`;

/** One series of a node's own /metrics. */
async function gauge(cluster: TestCluster, node: TestServer, series: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  return Number(new RegExp(`^${series}\\{node="${nodeName(cluster, node)}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/** A fetch that records the placements and chat lines answered with a success. */
function recordingFetch(acked: Acked): typeof fetch {
  return async (input, init) => {
    acked.inFlight++;
    try {
      const response = await fetch(input, init);
      const path = new URL(String(input instanceof Request ? input.url : input)).pathname;
      if (init?.method === 'POST' && response.ok && typeof init.body === 'string') {
        const rows = [JSON.parse(init.body)].flat() as Array<Record<string, unknown>>;
        if (path === '/rest/v1/game_blocks') for (const row of rows) acked.blocks.push(`${row.x},${row.y} ${row.block_type}`);
        if (path === '/rest/v1/game_chat_messages') for (const row of rows) acked.chat.push(String(row.message));
      }
      return response;
    } finally {
      acked.inFlight--;
    }
  };
}

/** Signs a player in through nginx and starts its session there. */
async function join(gateway: Pick<TestServer, 'url' | 'anonKey' | 'siteUrl'>, name: string, index: number): Promise<Player> {
  const acked: Acked = { blocks: [], chat: [], inFlight: 0 };
  const events: NetEvent[] = [];
  const states: Player['states'] = [];
  const signedIn = await signInPlayer(gateway, createTestWallet(), { fetch: recordingFetch(acked) });
  const lane = LAND.filter((_, i) => i % 3 === index);
  const pose = { x: 16 + 16 * index, y: 16, facing: 1, moving: false };
  let direction = 1;
  const headless = await startHeadlessPlayer(gateway, signedIn, {
    name,
    pose,
    onEvent: (event) => events.push(event),
    onConnection: (state) => states.push({ state, at: performance.now() }),
    // Walking to and fro over the spawn area, one pixel a step.
    onStep: () => {
      if (!pose.moving) return;
      if (pose.x >= 112 || pose.x <= 16) direction = -direction;
      pose.x += direction;
      pose.facing = direction;
    },
  });
  return Object.assign(headless, { name, acked, events, states, lane });
}

/** Places a block as the engine does: shown at once, then handed to the outbox. */
function place(p: Player, { x, y }: { x: number; y: number }, blockType: string): void {
  p.tiles.set(`${x},${y}`, blockType);
  p.queues.outbox.push({ kind: 'placeBlock', x, y, blockType, inventory: true });
}

/** Every player walks, builds along its lane and chats until the returned function is called. */
function play(players: Player[]): () => void {
  const timers: NodeJS.Timeout[] = [];
  for (const p of players) {
    p.pose.moving = true;
    let lines = 0;
    timers.push(setInterval(() => {
      const tile = p.lane.shift();
      if (tile) place(p, tile, 'stone');
    }, PLACE_EVERY_MS));
    timers.push(setInterval(() => void p.session.sendChat(`${p.name} line ${++lines}`), CHAT_EVERY_MS));
  }
  return () => {
    for (const timer of timers) clearInterval(timer);
    for (const p of players) p.pose.moving = false;
  };
}

/** Once nothing is waiting to be sent or answered, everything the players were answered with, as the database must hold it. */
async function settledAcks(players: Player[]): Promise<{ blocks: string[]; chat: string[] }> {
  await waitFor(() => players.every((p) => p.queues.outbox.length === 0 && p.acked.inFlight === 0), { timeout: 10_000, message: 'every request answered' });
  return {
    blocks: players.flatMap((p) => p.acked.blocks.map((block) => `${block} by ${p.player.address}`)).sort(),
    chat: players.flatMap((p) => p.acked.chat.map((line) => `${line} by ${p.player.address}`)).sort(),
  };
}

/** What the database holds of `acks`, read as the operator. */
async function stored(operator: pg.Client, acks: { blocks: string[]; chat: string[] }): Promise<{ blocks: string[]; chat: string[] }> {
  const blocks = await operator.query<{ row: string }>("select x || ',' || y || ' ' || block_type || ' by ' || player_id as row from public.game_blocks");
  const chat = await operator.query<{ row: string }>("select message || ' by ' || player_id as row from public.game_chat_messages");
  const has = (rows: { row: string }[]) => new Set(rows.map((r) => r.row));
  const [blockRows, chatRows] = [has(blocks.rows), has(chat.rows)];
  return { blocks: acks.blocks.filter((b) => blockRows.has(b)), chat: acks.chat.filter((c) => chatRows.has(c)) };
}

test.before(async (ctx) => {
  if (!installed) return;
  // uvu reports a failed before hook only as tests not run: its error is told here.
  await setUp(ctx).catch((error: unknown) => {
    console.error(`node loss: setting up failed: ${(error as Error).stack ?? String(error)}`);
    throw error;
  });
});

/** Three nodes on one PostgreSQL and Redis behind nginx, and three players each on a node of its own. */
async function setUp(ctx: Ctx): Promise<void> {
  // A PostgreSQL of the cluster's own, so that any node, the drainer included, may be killed.
  ctx.cluster = await startCluster(3, NODE_ENV, { atOnce: true });
  const plain = await freePort();
  ctx.nginx = await startNginx((dir, port) => proxySite('nginx-cluster.conf', dir, port, (site) => {
    const ports = ctx.cluster.nodes.map((node) => new URL(node.url).port);
    let next = 0;
    // The file's three nodes, and a plain HTTP listener beside its TLS one for the players (Node's clients refuse a self-signed certificate).
    return site.replace(UPSTREAM_NODES, () => `    server 127.0.0.1:${ports[next++]} max_fails=2 fail_timeout=10s;\n`)
      .replace(`listen 127.0.0.1:${port} ssl http2;`, `$&\n    listen 127.0.0.1:${plain};`);
  }));
  ctx.operator = new pg.Client({ connectionString: ctx.cluster.databaseUrl });
  await ctx.operator.connect();
  const gateway = { url: `http://127.0.0.1:${plain}`, anonKey: ctx.cluster.nodes[0]!.anonKey, siteUrl: CLUSTER_SITE_URL };
  ctx.players = [];
  ctx.nodeOf = new Map();
  for (const [index, name] of ['Ann', 'Bob', 'Cat'].entries()) {
    // least_conn counts the REST requests in flight too, so a socket may land beside another's: a second player is joined again until it stands on a node of its own.
    for (let attempt = 1; ; attempt++) {
      const before = await Promise.all(ctx.cluster.nodes.map((node) => gauge(ctx.cluster, node, 'tessera_realtime_connections')));
      const p = await join(gateway, attempt === 1 ? name : `${name}${attempt}`, index);
      await waitFor(() => p.session.connection() === 'online', { timeout: 10_000, message: `${p.name} online` });
      const after = await Promise.all(ctx.cluster.nodes.map((node) => gauge(ctx.cluster, node, 'tessera_realtime_connections')));
      const node = ctx.cluster.nodes.find((_, i) => after[i]! - before[i]! === 1);
      assert.ok(node, `${name}'s socket found on one node (${before} -> ${after})`);
      const shared = index === 1 && ctx.nodeOf.get('Ann') === node;
      if (!shared || attempt === 5) {
        ctx.players.push(p);
        ctx.nodeOf.set(p.name, node);
        break;
      }
      await p.session.close();
      await p.player.client.realtime.disconnect();
    }
  }
  // On a timeout, say whom each player knew: a late delivery and a stale row read differently.
  const nameOf = (address: string) => ctx.players.find((p) => p.player.address === address)?.name ?? address.slice(0, 8);
  const known = () => ctx.players.map((p) => `${p.name} knows [${p.session.onlinePlayers().map(nameOf).join(', ')}]`).join('; ');
  // A second player joined again may still be known under its first name for a moment: the two others are looked for, not a count.
  const knowsOthers = (p: Player) => ctx.players.every((other) => other === p || p.session.onlinePlayers().includes(other.player.address));
  await waitFor(() => ctx.players.every(knowsOthers), { timeout: 10_000, message: () => `every player knows the two others (${known()})` });
}

test.after(async (ctx) => {
  ctx.stopActivity?.();
  await Promise.allSettled((ctx.players ?? []).map(async (p) => {
    await p.session.close();
    // Its socket closed too, or nginx would wait for it before stopping.
    await p.player.client.realtime.disconnect();
  }));
  await ctx.operator?.end();
  await ctx.nginx?.stop();
  await ctx.cluster?.close();
});

test('a node killed under a playing player (the drainer when it holds one): back within 5 s through nginx, nothing acknowledged lost, seen leaving never', async (ctx) => {
  if (!installed) return;
  const { cluster, players, nodeOf, operator } = ctx;
  const where = players.map((p) => `${p.name}@${nodeName(cluster, nodeOf.get(p.name)!)}`).join(', ');
  const drainers = await Promise.all(cluster.nodes.map((node) => gauge(cluster, node, 'tessera_realtime_drainer')));
  assert.equal(drainers.filter((d) => d === 1).length, 1, 'one drainer');
  // The drainer when it holds a player (nginx spreads the sockets by count, not one on each node), else a node that does; a player stays elsewhere.
  const holding = (node: TestServer) => players.filter((p) => nodeOf.get(p.name) === node).length;
  const drainer = cluster.nodes[drainers.indexOf(1)]!;
  const lost = holding(drainer) > 0 && holding(drainer) < 3 ? drainer : cluster.nodes.find((node) => holding(node) > 0 && holding(node) < 3)!;
  assert.ok(lost, `the players are on more than one node (${where})`);
  const victim = players.find((p) => nodeOf.get(p.name) === lost)!;
  const others = players.filter((p) => p !== victim);

  ctx.stopActivity = play(players);
  await waitFor(() => players.every((p) => p.acked.blocks.length >= 3 && p.acked.chat.length >= 1), { timeout: 10_000, message: 'every player built and chatted' });
  const heardBefore = others.map((p) => p.events.length);
  const statesBefore = victim.states.length;
  const killedAt = performance.now();
  console.log(`node loss: ${where}; ${nodeName(cluster, lost)} killed${lost === drainer ? ' (the drainer)' : ''}`);
  await lost.kill();

  await waitFor(() => victim.states.slice(statesBefore).some((s) => s.state === 'restoring') && victim.session.connection() === 'online', {
    timeout: 10_000, message: () => `${victim.name} back online (${victim.states.slice(statesBefore).map((s) => s.state)})`,
  });
  const back = victim.states.slice(statesBefore).find((s) => s.state === 'online')!;
  const backSeconds = (back.at - killedAt) / 1000;
  console.log(`node loss: ${victim.name} back in the world ${backSeconds.toFixed(2)} s after the kill`);
  assert.ok(backSeconds < 5, `back within 5 s (${backSeconds.toFixed(2)} s)`);
  assert.equal(victim.states.slice(statesBefore).map((s) => s.state), ['restoring', 'online']);
  const survivors = cluster.nodes.filter((node) => node !== lost);
  const counts = await Promise.all(survivors.map((node) => gauge(cluster, node, 'tessera_realtime_connections')));
  assert.is(counts[0]! + counts[1]!, 3, `the three sockets on the two nodes left (${counts})`);
  await waitFor(async () => (await Promise.all(survivors.map((node) => gauge(cluster, node, 'tessera_realtime_drainer')))).includes(1), { message: 'another node drains' });

  // It plays on: its edits and lines after the return are answered too, and its next block reaches the others live.
  const ackedAtReturn = victim.acked.blocks.length;
  await waitFor(() => victim.acked.blocks.length >= ackedAtReturn + 2, { timeout: 5000, message: `${victim.name} building again` });
  ctx.stopActivity();
  const acks = await settledAcks(players);
  const mark = victim.lane.shift()!;
  place(victim, mark, 'gold');
  for (const p of others) await waitFor(() => p.tiles.get(`${mark.x},${mark.y}`) === 'gold', { message: `${victim.name}'s block after its return heard by ${p.name}` });

  const held = await stored(operator, acks);
  console.log(`node loss: ${acks.blocks.length} placements and ${acks.chat.length} chat lines answered, ${acks.blocks.length - held.blocks.length + acks.chat.length - held.chat.length} of them missing from the database`);
  assert.equal(held, acks, 'every answered placement and chat line is stored');
  const { rows } = await operator.query<{ age: number }>('select extract(epoch from now() - last_seen)::float as age from public.game_players where player_id = $1', [victim.player.address]);
  assert.ok(rows[0]!.age < (performance.now() - back.at) / 1000 + 1, `${victim.name}'s presence row written again since the return (${rows[0]!.age} s old)`);

  // Its presence row stayed (its heartbeat was back long before the 30 s of staleness): the others never saw it leave, and heard its row again from the nodes left.
  for (const [i, p] of others.entries()) {
    const heard = p.events.slice(heardBefore[i]).filter((e) => (e.kind === 'playerLeft' || e.kind === 'playerUpsert') && e.id === victim.player.address);
    assert.is(heard.filter((e) => e.kind === 'playerLeft').length, 0, `${p.name} never saw ${victim.name} leave`);
    assert.ok(heard.some((e) => e.kind === 'playerUpsert'), `${p.name} heard ${victim.name}'s presence after the kill`);
    assert.equal(p.session.onlinePlayers().sort(), players.filter((o) => o !== p).map((o) => o.player.address).sort());
  }
  for (const p of players) assert.equal(p.notices, [], `${p.name} was told of no refusal`);
});

test('Redis restarted under the players: every node serves its own, what was built meanwhile reaches everyone, poses cross again', async (ctx) => {
  if (!installed) return;
  const { cluster, players, operator } = ctx;
  const running = cluster.nodes.filter((node) => node.child.exitCode === null && node.child.signalCode === null);
  const ready = async (node: TestServer) => (await fetch(`${node.url}/readyz`)).status === 200;
  const statesBefore = players.map((p) => p.states.length);
  const stoppedAt = performance.now();
  await cluster.redis.stop();
  await waitFor(async () => !(await ready(running[0]!)) && !(await ready(running[1]!)), { message: 'both nodes say Redis is gone' });
  // Meanwhile every node serves its players: reads and writes through nginx (taken in turn) are answered, and their sockets stay open.
  for (const p of players) {
    const { data, error } = await p.player.client.from('game_blocks').select('x').eq('player_id', p.player.address);
    assert.is(error, null);
    assert.is(data!.length, p.acked.blocks.length);
  }
  const built = players.map((p) => ({ p, tile: p.lane.shift()!, acked: p.acked.blocks.length }));
  for (const { p, tile } of built) place(p, tile, 'brick');
  await waitFor(() => built.every(({ p, acked }) => p.acked.blocks.length === acked + 1), { message: 'the placements made without Redis answered' });
  await cluster.redis.restart();
  await waitFor(async () => (await ready(running[0]!)) && (await ready(running[1]!)), { timeout: 10_000, message: 'both nodes back on Redis' });
  console.log(`redis restart: Redis away ${((performance.now() - stoppedAt) / 1000).toFixed(2)} s`);

  const acks = await settledAcks(players);
  assert.equal(await stored(operator, acks), acks, 'every answered placement is stored');
  for (const p of players) {
    for (const { p: builder, tile } of built) {
      await waitFor(() => p.tiles.get(`${tile.x},${tile.y}`) === 'brick', { message: `${builder.name}'s block built without Redis shown to ${p.name}` });
    }
  }
  assert.equal(players.map((p, i) => p.states.slice(statesBefore[i]).map((s) => s.state)), [[], [], []], 'nobody was told the connection dropped');
  // Live poses cross nodes again once every node is back on Redis (those sent meanwhile to another node's players are lost).
  const walker = players[0]!;
  const heard = players.map((p) => p.posesHeard);
  walker.pose.moving = true;
  await waitFor(() => players.every((p, i) => p === walker || p.posesHeard > heard[i]!), { message: `${walker.name}'s poses heard by everyone` });
  walker.pose.moving = false;
});

test.run();
