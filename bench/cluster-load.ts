/**
 * The load of bench:cluster on the nodes of one cluster (test/support/cluster.ts): crowds of load
 * bots (test/support/load/) split evenly over the nodes, one fleet per node sharing one set of
 * figures, each bot signed in on the node it uses; builders that place and remove blocks at the
 * rate a wallet is allowed; listeners that hear the block changes of a region on one node; and the
 * figures read from the nodes (CPU of each node's process, the bus's delivery histogram).
 */
import pg from 'pg';
import { decodeBlockChanges } from '../protocol/block-changes.js';
import { regionOfTile, TILE_SIZE, type Region } from '../protocol/geometry.js';
import { PRESENCE_HEARTBEAT_MS } from '../protocol/rules.js';
import { blocksTopic, BLOCKS_EVENT } from '../protocol/topics.js';
import type { TestCluster } from '../test/support/cluster.js';
import type { BotPlan } from '../test/support/load/bot.js';
import { LoadFigures } from '../test/support/load/figures.js';
import { Fleet, freeTileNear } from '../test/support/load/fleet.js';
import * as q from '../test/support/load/queries.js';
import { restRequest, type RestTarget } from '../test/support/load/rest.js';
import { createBotKeys, signInBot, type BotIdentity, type BotKey } from '../test/support/load/sign-in.js';
import { BotSocket } from '../test/support/load/socket.js';
import type { Box } from '../test/support/load/walker.js';
import type { TestServer } from '../test/support/server.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { cpuSeconds, postgresCpuSeconds, serverPids } from './processes.js';
import { inBatches, spreadPlan } from './capacity-support.js';

/** Players entering per second, over the whole cluster (bench:capacity's rate). */
const ARRIVALS_PER_SECOND = 25;
/** The screen around spawn the "screen" crowd walks in (bench:capacity's calibration screen). */
const SCREEN: Box = { left: -380, top: -280, right: 380, bottom: 280 };
/** Placements and removals a second one wallet may make (docs/rules.md, "Rates"): builders keep to it. */
const WALLET_BLOCKS_PER_SECOND = 8;

/** Where a crowd stands: all in one screen, or in groups of eight far apart. */
export type Shape = 'screen' | 'spread';

/** Writes a presence row for each wallet at its start, straight into the cluster's database, so a bot may enter away from spawn. */
export async function seedPresence(cluster: TestCluster, starts: Array<{ address: string; name: string; x: number; y: number }>): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  try {
    const rows = JSON.stringify(starts.map(({ address, name, x, y }) => ({ player_id: address, player_name: name, x, y })));
    await client.query(
      `insert into public.game_players (player_id, player_name, x, y)
       select player_id, player_name, x, y from jsonb_to_recordset($1::jsonb) as r(player_id text, player_name text, x int, y int)
       on conflict (player_id) do update set x = excluded.x, y = excluded.y, last_seen = now()`,
      [rows],
    );
  } finally {
    await client.end();
  }
}

/** The plan of bot `index` of `total` in `shape`: one in ten building every 3 s; in the screen, one in twenty chatting every 30 s. */
export function crowdPlan(shape: Shape, index: number, total: number, prefix: string): BotPlan {
  const name = `${prefix}${String(index).padStart(4, '0')}`;
  if (shape === 'screen') {
    const start = { x: Math.round(SCREEN.left + Math.random() * (SCREEN.right - SCREEN.left)), y: Math.round(SCREEN.top + Math.random() * (SCREEN.bottom - SCREEN.top)) };
    return { index, name, start, box: SCREEN, placeEveryMs: index % 10 === 0 ? 3000 : 0, chatEveryMs: index % 20 === 5 ? 30_000 : 0 };
  }
  return spreadPlan(index, total, name);
}

/** A crowd over the nodes of a cluster: bot `i` on node `i mod nodes`. */
export interface Crowd {
  fleets: Fleet[];
  /** The figures every fleet records into. */
  figures: LoadFigures;
  plans: BotPlan[];
  /** Each bot's wallet key, to sign it in again elsewhere. */
  keys: BotKey[];
  /** The node index of each bot. */
  nodeOf(index: number): number;
  stop(): Promise<void>;
}

/** Signs `players` bots of `shape` in on their nodes, enters them at ARRIVALS_PER_SECOND and waits until every one is in the world. */
export async function startCrowd(cluster: TestCluster, shape: Shape, players: number, prefix: string): Promise<Crowd> {
  const nodes = cluster.nodes;
  const plans = Array.from({ length: players }, (_, i) => crowdPlan(shape, i, players, prefix));
  const keys = createBotKeys(players);
  await seedPresence(cluster, plans.map((plan, i) => ({ address: keys[i]!.address, name: plan.name, ...plan.start })));
  const nodeOf = (index: number) => index % nodes.length;
  const identities = await inBatches(keys, 16, (key, i) => signInBot(nodes[nodeOf(i)]!, key));
  const figures = new LoadFigures(players);
  const fleets = nodes.map((node) => new Fleet(node.url, node.anonKey, players, figures));
  const adding: Promise<unknown>[] = [];
  for (const [i, identity] of identities.entries()) {
    adding.push(fleets[nodeOf(i)]!.add(identity, plans[i]!).catch(() => undefined));
    await sleep(1000 / ARRIVALS_PER_SECOND);
  }
  await Promise.all(adding);
  const everyBot = () => fleets.flatMap((fleet) => fleet.bots);
  await waitFor(() => everyBot().length === players && everyBot().every((bot) => bot.ready()), { timeout: 120_000, interval: 250, message: 'every bot in the world' })
    .catch((error: Error) => console.error(`cluster: ${error.message}`));
  return { fleets, figures, plans, keys, nodeOf, stop: () => Promise.all(fleets.map((fleet) => fleet.stop())).then(() => undefined) };
}

/** CPU seconds so far of each node's own process, and of the PostgreSQL the first node runs. */
export interface ClusterCpu {
  nodes: number[];
  postgres: number;
}

/** Reads {@link ClusterCpu} from /proc. */
export async function clusterCpu(cluster: TestCluster): Promise<ClusterCpu> {
  const postgresPids = (await serverPids(cluster.nodes[0]!)).slice(1);
  return {
    nodes: cluster.nodes.map((node) => cpuSeconds(node.child.pid!)),
    postgres: postgresCpuSeconds(postgresPids),
  };
}

/** Cumulative counts of `tessera_bus_delivery_seconds` by bucket bound (seconds), summed over the nodes. */
export async function busDeliveryBuckets(nodes: readonly TestServer[]): Promise<Map<number, number>> {
  const buckets = new Map<number, number>();
  for (const node of nodes) {
    const text = await (await fetch(`${node.url}/metrics`)).text();
    for (const match of text.matchAll(/^tessera_bus_delivery_seconds_bucket\{le="([^"]+)"[^}]*\} (\S+)$/gm)) {
      const bound = match[1] === '+Inf' ? Infinity : Number(match[1]);
      buckets.set(bound, (buckets.get(bound) ?? 0) + Number(match[2]));
    }
  }
  return buckets;
}

/**
 * The `p`-th percentile (0-100) in ms of the deliveries between two readings of
 * {@link busDeliveryBuckets}: the upper bound of the bucket it falls in; NaN when none was delivered.
 */
export function busPercentileMs(before: Map<number, number>, after: Map<number, number>, p: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (total <= 0) return NaN;
  const bound = bounds.find((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0) >= (p / 100) * total) ?? Infinity;
  return bound * 1000;
}

/** A wallet standing at a place, signed in on one node, keeping its presence fresh with the heartbeat. */
class Member {
  readonly target: RestTarget;
  private readonly beat: ReturnType<typeof setInterval>;

  constructor(readonly node: TestServer, readonly identity: BotIdentity, readonly name: string, readonly x: number, readonly y: number, figures: LoadFigures) {
    this.target = { url: node.url.replace('//localhost:', '//127.0.0.1:'), anonKey: node.anonKey, figures };
    this.beat = setInterval(() => void this.heartbeat(), PRESENCE_HEARTBEAT_MS);
  }

  /** One presence heartbeat where it stands. */
  heartbeat() {
    return this.send(q.heartbeatRequest(this.identity.address, this.name, this.x, this.y, Date.now()));
  }

  send(request: q.GameRequest) {
    return restRequest(this.target, this.identity.accessToken, request.table, request.query, request.call);
  }

  /** Stops the heartbeat. */
  stop(): void {
    clearInterval(this.beat);
  }
}

/** Signs `count` wallets in (wallet `i` on `nodeFor(i)`), seeded at `placeFor(i)`, each made into a member by `make`. */
async function members<T>(cluster: TestCluster, count: number, prefix: string, nodeFor: (i: number) => TestServer, placeFor: (i: number) => { x: number; y: number },
  make: (node: TestServer, identity: BotIdentity, name: string, place: { x: number; y: number }) => T): Promise<T[]> {
  const keys: BotKey[] = createBotKeys(count);
  const name = (i: number) => `${prefix}${String(i).padStart(3, '0')}`;
  await seedPresence(cluster, keys.map((key, i) => ({ address: key.address, name: name(i), ...placeFor(i) })));
  const identities = await inBatches(keys, 16, (key, i) => signInBot(nodeFor(i), key));
  return identities.map((identity, i) => make(nodeFor(i), identity, name(i), placeFor(i)));
}

/** One acknowledged block change of a builder: the tile, which change of that tile it was, and when it was asked for. */
export interface BlockChangeSent {
  /** `x,y#n`: the tile's n-th change. */
  key: string;
  /** `x,y`. */
  tile: string;
  region: string;
  sentAt: number;
  /** A placement (true) or a removal. */
  set: boolean;
}

/** A builder: places and removes blocks on tiles of its own around where it stands, at the rate a wallet may. */
export class Builder extends Member {
  private readonly tiles: Array<{ x: number; y: number; set: boolean; changes: number }> = [];
  private next = 0;

  constructor(node: TestServer, identity: BotIdentity, name: string, x: number, y: number, figures: LoadFigures, used: Set<string>, tiles: number) {
    super(node, identity, name, x, y, figures);
    for (let i = 0; i < tiles; i++) {
      const tile = freeTileNear(used, x, y);
      if (tile) this.tiles.push({ ...tile, set: false, changes: 0 });
    }
  }

  /** The regions of its tiles. */
  regions(): Region[] {
    return this.tiles.map((tile) => regionOfTile(tile.x, tile.y));
  }

  /**
   * Makes changes until `more()` says stop, at WALLET_BLOCKS_PER_SECOND: places on its tiles in
   * turn, and once `remove` is set and a tile holds its block, removes it instead. Each
   * acknowledged change is handed to `acked`.
   */
  async build(more: () => boolean, remove: boolean, acked: (change: BlockChangeSent) => void): Promise<void> {
    let due = Date.now() + Math.random() * (1000 / WALLET_BLOCKS_PER_SECOND);
    while (more() && this.tiles.length > 0) {
      await sleep(Math.max(0, due - Date.now()));
      due += 1000 / WALLET_BLOCKS_PER_SECOND;
      const tile = this.tiles[this.next++ % this.tiles.length]!;
      if (tile.set && !remove) continue;
      const set = !tile.set;
      const sentAt = Date.now();
      const { status } = await this.send(set ? q.placeRequest(this.identity.address, this.name, tile.x, tile.y, 'stone')
        : { table: 'game_blocks', query: [['x', `eq.${tile.x}`], ['y', `eq.${tile.y}`]], call: { method: 'DELETE' } });
      if (status < 200 || status >= 300) continue;
      tile.set = set;
      acked({ key: `${tile.x},${tile.y}#${tile.changes++}`, tile: `${tile.x},${tile.y}`, region: blocksTopic(regionOfTile(tile.x, tile.y)), sentAt, set });
    }
  }
}

/**
 * `count` builders named `prefix` and a number (a name is held by one wallet: each call its own
 * prefix) on `nodes` in turn, standing on a grid of 4-tile steps from pixel (x, y), with `tiles` tiles each.
 */
export function startBuilders(cluster: TestCluster, prefix: string, count: number, at: { x: number; y: number }, tiles: number, figures: LoadFigures, nodes = cluster.nodes): Promise<Builder[]> {
  const side = Math.ceil(Math.sqrt(count));
  const used = new Set<string>();
  const place = (i: number) => ({ x: at.x + (i % side) * 4 * TILE_SIZE, y: at.y + Math.floor(i / side) * 4 * TILE_SIZE });
  return members(cluster, count, prefix, (i) => nodes[i % nodes.length]!, place,
    (node, identity, name, { x, y }) => new Builder(node, identity, name, x, y, figures, used, tiles));
}

/** A block change as a listener heard it. */
interface Arrival {
  topic: string;
  tile: string;
  set: boolean;
  at: number;
}

/** What a listener heard of the blocks topics it follows, in the order it arrived. */
export class BlockListener extends Member {
  readonly arrivals: Arrival[] = [];
  private readonly socket: BotSocket;
  private readonly tick: ReturnType<typeof setInterval>;

  constructor(node: TestServer, identity: BotIdentity, name: string, x: number, y: number, figures: LoadFigures) {
    super(node, identity, name, x, y, figures);
    this.socket = new BotSocket(this.target.url, node.anonKey, figures, { joined: () => undefined, broadcast: (message) => this.hear(message.topic, message.event, message.payload), closed: () => undefined });
    this.tick = setInterval(() => this.socket.tick(Date.now()), 1000);
  }

  /** Joins the blocks topics of `regions`; resolves once every one is joined. */
  async follow(regions: readonly Region[]): Promise<void> {
    await this.socket.opened;
    await this.heartbeat();
    const channels = regions.map((region) => this.socket.join(blocksTopic(region), { private: true }, [], this.identity.accessToken));
    await waitFor(() => channels.every((channel) => channel.joined), { timeout: 20_000, message: 'the blocks topics joined' });
  }

  private hear(topic: string, event: string, payload: unknown): void {
    if (event !== BLOCKS_EVENT) return;
    const at = Date.now();
    for (const change of decodeBlockChanges(payload)) {
      this.arrivals.push({ topic: topic.replace(/^realtime:/, ''), tile: `${change.x},${change.y}`, set: change.blockType !== null, at });
    }
  }

  /** Stops its heartbeat and closes its socket. */
  close(): void {
    this.stop();
    clearInterval(this.tick);
    this.socket.close();
  }
}

/** The sent changes a listener heard: per topic, their keys in the order they arrived, and when each arrived. */
export interface Heard {
  byTopic: Map<string, string[]>;
  arrivedAt: Map<string, number>;
}

/**
 * Matches each arrival to the latest change of its tile and kind sent before it arrived (a
 * builder comes back to a tile and kind only after 2 × its tiles changes, seconds later), so a
 * listener that misses some changes still times the others right.
 */
export function matchArrivals(arrivals: readonly Arrival[], sent: readonly BlockChangeSent[]): Heard {
  const sentOf = new Map<string, BlockChangeSent[]>();
  for (const change of [...sent].sort((a, b) => a.sentAt - b.sentAt)) {
    const id = `${change.tile}/${change.set}`;
    let list = sentOf.get(id);
    if (!list) sentOf.set(id, (list = []));
    list.push(change);
  }
  const heard: Heard = { byTopic: new Map(), arrivedAt: new Map() };
  for (const arrival of arrivals) {
    const candidates = sentOf.get(`${arrival.tile}/${arrival.set}`) ?? [];
    let match: BlockChangeSent | undefined;
    for (const change of candidates) {
      if (change.sentAt > arrival.at) break;
      match = change;
    }
    if (!match || heard.arrivedAt.has(match.key)) continue;
    heard.arrivedAt.set(match.key, arrival.at);
    let list = heard.byTopic.get(arrival.topic);
    if (!list) heard.byTopic.set(arrival.topic, (list = []));
    list.push(match.key);
  }
  return heard;
}

/** One listener on each of `nodes`, standing at pixel (x, y). */
export function startListeners(cluster: TestCluster, nodes: readonly TestServer[], at: { x: number; y: number }, figures: LoadFigures): Promise<BlockListener[]> {
  return members(cluster, nodes.length, 'Listener', (i) => nodes[i]!, () => at,
    (node, identity, name, { x, y }) => new BlockListener(node, identity, name, x, y, figures));
}

/**
 * Changes of `heard` that arrived after a change that came later in `reference` (the order the
 * node of the writes delivered, which is commit order per topic), over every topic.
 */
export function outOfOrder(reference: Map<string, string[]>, heard: Map<string, string[]>): number {
  let count = 0;
  for (const [topic, keys] of heard) {
    const rank = new Map((reference.get(topic) ?? []).map((key, i) => [key, i]));
    let latest = -1;
    for (const key of keys) {
      const at = rank.get(key);
      if (at === undefined) continue;
      if (at < latest) count++;
      else latest = at;
    }
  }
  return count;
}
