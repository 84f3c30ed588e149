import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { busDelivery, busDropped, busMessages, busReconnects } from '../metrics.js';
import { NODE_DOWN_MS, NODE_HEARTBEAT_MS } from './bus.js';
import type { Bus } from './bus.js';

/** Longest a start waits for Redis before it fails. */
export const REDIS_START_TIMEOUT_MS = 10_000;

/** Most messages one channel gathers within a turn of the event loop; past it they are dropped and counted. */
export const MAX_QUEUED_PER_CHANNEL = 20_000;

/** The prefix of every Redis channel and key of Tessera's bus. */
export const BUS_PREFIX = 'tessera:';

/** The channel of the nodes' heartbeats and farewells. */
const NODES_CHANNEL = 'nodes';

/** What crosses Redis, as JSON with `n` first: the sending node, when the first of its messages was queued (ms epoch), and the messages. */
interface Envelope {
  n: string;
  t: number;
  m: unknown[];
}

/** A node's name when `NODE_ID` gives none: host, process and a random part, so a restarted process is a new node. */
export function defaultNodeName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** Resolves once `client` is ready; rejects with the last connection error after {@link REDIS_START_TIMEOUT_MS}. */
async function ready(client: Redis, url: string): Promise<void> {
  if (client.status === 'ready') return;
  let lastError = 'no answer';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`REDIS_URL: cannot reach Redis at ${new URL(url).host}: ${lastError}`));
    }, REDIS_START_TIMEOUT_MS);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
    client.on('error', (error: Error) => (lastError = error.message));
  });
}

/** Reconnection delays: quick at first, then every 2 s at most. */
const retryStrategy = (times: number) => Math.min(100 * times, 2000);

/** The liveness of the other nodes, from their heartbeats. */
class NodeWatch {
  private readonly lastSeen = new Map<string, number>();
  readonly downListeners: ((node: string) => void)[] = [];

  constructor(private readonly self: string) {}

  heard(node: string, alive: boolean): void {
    if (alive) this.lastSeen.set(node, performance.now());
    else this.down(node);
  }

  /** Counts every node silent for NODE_DOWN_MS as down. */
  sweep(): void {
    const now = performance.now();
    for (const [node, seen] of this.lastSeen) if (now - seen > NODE_DOWN_MS) this.down(node);
  }

  live(): string[] {
    return [this.self, ...this.lastSeen.keys()];
  }

  private down(node: string): void {
    if (!this.lastSeen.delete(node)) return;
    for (const listener of this.downListeners) listener(node);
  }
}

/**
 * Joins the bus of the cluster on the Redis at `url` (Redis pub/sub, one Redis channel per bus
 * channel, `tessera:<channel>`): one connection publishes and runs commands, one listens.
 * Publishing never queues while Redis is down (the message is dropped and counted); the listening
 * connection subscribes again by itself when it is back. Resolves once both connections are
 * ready; rejects after {@link REDIS_START_TIMEOUT_MS} without Redis.
 */
export async function connectBus(url: string, node: string, log: (message: string) => void): Promise<Bus> {
  const publisher = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy, connectionName: `tessera-${node}` });
  const listener = new Redis(url, { lazyConnect: true, retryStrategy, connectionName: `tessera-${node}-sub` });
  publisher.on('error', () => undefined);
  listener.on('error', () => undefined);
  await Promise.all([publisher.connect().catch(() => undefined), listener.connect().catch(() => undefined)]);
  try {
    await Promise.all([ready(publisher, url), ready(listener, url)]);
  } catch (error) {
    publisher.disconnect();
    listener.disconnect();
    throw error;
  }
  return createRedisBus(publisher, listener, node, log);
}

/** Messages queued within one turn of the event loop, per channel, sent as one envelope each. */
class Outbox {
  private readonly queued = new Map<string, { at: number; messages: unknown[] }>();
  private flushing = false;

  constructor(
    private readonly publisher: Redis,
    private readonly node: string,
  ) {}

  add(channel: string, message: unknown): void {
    let entry = this.queued.get(channel);
    if (!entry) this.queued.set(channel, (entry = { at: Date.now(), messages: [] }));
    if (entry.messages.length >= MAX_QUEUED_PER_CHANNEL) {
      busDropped.inc();
      return;
    }
    entry.messages.push(message);
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushing = false;
    const up = this.publisher.status === 'ready';
    for (const [channel, { at, messages }] of this.queued) {
      if (!up) {
        busDropped.inc(messages.length);
        continue;
      }
      const envelope: Envelope = { n: this.node, t: at, m: messages };
      this.publisher.publish(BUS_PREFIX + channel, JSON.stringify(envelope)).catch(() => busDropped.inc(messages.length));
      busMessages.inc({ direction: 'out' }, messages.length);
    }
    this.queued.clear();
  }
}

/** The handlers of each channel, fed with the envelopes other nodes sent. */
class Inbox {
  readonly handlers = new Map<string, ((message: unknown, from: string) => void)[]>();
  /** How this node's own envelopes begin (JSON with `n` first): Redis hands them back too, and they are dropped unread. */
  private readonly ownStart: Buffer;

  constructor(
    private readonly node: string,
    private readonly nodes: NodeWatch,
    private readonly log: (message: string) => void,
  ) {
    this.ownStart = Buffer.from(`{"n":${JSON.stringify(node)},`);
  }

  receive(redisChannel: string, bytes: Buffer): void {
    if (bytes.subarray(0, this.ownStart.length).equals(this.ownStart)) return;
    const envelope = JSON.parse(bytes.toString()) as Envelope;
    if (envelope.n === this.node) return;
    const channel = redisChannel.slice(BUS_PREFIX.length);
    busMessages.inc({ direction: 'in' }, envelope.m.length);
    busDelivery.observe(Math.max(0, Date.now() - envelope.t) / 1000);
    if (channel === NODES_CHANNEL) {
      for (const message of envelope.m) this.nodes.heard(envelope.n, (message as { alive: boolean }).alive);
      return;
    }
    this.nodes.heard(envelope.n, true);
    for (const handler of this.handlers.get(channel) ?? []) {
      for (const message of envelope.m) {
        try {
          handler(message, envelope.n);
        } catch (error) {
          this.log(`bus: a message on ${channel} from ${envelope.n} failed: ${(error as Error).message}`);
        }
      }
    }
  }
}

/** Tells `reconnected` once both connections are ready again after either was lost, and logs the loss once. */
function watchConnections(publisher: Redis, listener: Redis, isClosed: () => boolean, reconnected: () => void, log: (message: string) => void): () => string {
  let down = false;
  let lastError = '';
  const onDown = (error?: Error) => {
    if (error) lastError = error.message;
    if (isClosed() || down) return;
    down = true;
    log(`bus: the connection to Redis is lost${error ? `: ${error.message}` : ''}; reconnecting`);
  };
  const onReady = () => {
    if (!down || publisher.status !== 'ready' || listener.status !== 'ready') return;
    down = false;
    busReconnects.inc();
    log('bus: back on Redis');
    reconnected();
  };
  for (const client of [publisher, listener]) {
    client.on('error', onDown);
    client.on('close', () => onDown());
    client.on('ready', onReady);
  }
  return () => (publisher.status === 'ready' && listener.status === 'ready' ? 'ok' : `unreachable: ${lastError || publisher.status}`);
}

/** The bus over two ready connections (see {@link connectBus}). */
function createRedisBus(publisher: Redis, listener: Redis, node: string, log: (message: string) => void): Bus {
  const nodes = new NodeWatch(node);
  const outbox = new Outbox(publisher, node);
  const inbox = new Inbox(node, nodes, log);
  const reconnectListeners: (() => void)[] = [];
  let closed = false;
  const status = watchConnections(publisher, listener, () => closed, () => {
    for (const listen of reconnectListeners) listen();
  }, log);
  listener.on('messageBuffer', (channelBytes: Buffer, bytes: Buffer) => {
    const channel = channelBytes.toString();
    try {
      inbox.receive(channel, bytes);
    } catch (error) {
      log(`bus: an unreadable message on ${channel}: ${(error as Error).message}`);
    }
  });
  const subscribeRedis = (channel: string) =>
    void listener.subscribe(BUS_PREFIX + channel).catch((error: Error) => log(`bus: subscribing to ${channel} failed: ${error.message}`));
  subscribeRedis(NODES_CHANNEL);
  const beat = () => {
    nodes.sweep();
    if (!closed) outbox.add(NODES_CHANNEL, { alive: true });
  };
  const heartbeat = setInterval(beat, NODE_HEARTBEAT_MS);
  heartbeat.unref();
  beat();
  return {
    node,
    clustered: true,
    publish: (channel, message) => void (closed || outbox.add(channel, message)),
    subscribe(channel, handler) {
      const list = inbox.handlers.get(channel);
      if (list) list.push(handler);
      else {
        inbox.handlers.set(channel, [handler]);
        subscribeRedis(channel);
      }
    },
    onReconnect: (listen) => void reconnectListeners.push(listen),
    onNodeDown: (listen) => void nodes.downListeners.push(listen),
    liveNodes: () => nodes.live(),
    status,
    command: (name, ...args) => publisher.call(name, ...args),
    async close() {
      closed = true;
      clearInterval(heartbeat);
      const farewell: Envelope = { n: node, t: Date.now(), m: [{ alive: false }] };
      if (publisher.status === 'ready') await publisher.publish(BUS_PREFIX + NODES_CHANNEL, JSON.stringify(farewell)).catch(() => undefined);
      listener.disconnect();
      publisher.disconnect();
    },
  };
}
