/**
 * The bus between the nodes of one world (docs/cluster.md). Every node of a cluster publishes
 * what its own players did that players on other nodes must see, and hears what the others
 * published. Without `REDIS_URL` the server is a cluster of one and its bus is {@link soloBus}:
 * publishing goes nowhere and nothing is ever heard.
 */
export interface Bus {
  /** This node's name, unique in the cluster (`NODE_ID`, or host, process and a random part). */
  readonly node: string;
  /** Whether other nodes may exist: false for {@link soloBus}. */
  readonly clustered: boolean;
  /**
   * Sends `message` (JSON-serialisable) on `channel` to every other node, after those published
   * before it on the same channel. Messages published within one turn of the event loop leave
   * as one. While the bus is down the message is dropped and counted.
   */
  publish(channel: string, message: unknown): void;
  /** Calls `handler` with each message another node publishes on `channel`, in their order. */
  subscribe(channel: string, handler: (message: unknown, from: string) => void): void;
  /** Calls `listener` each time the bus is back after being down: what was published meanwhile is lost. */
  onReconnect(listener: () => void): void;
  /** Calls `listener` with a node's name when its heartbeat stopped for NODE_DOWN_MS (it died or lost the bus). */
  onNodeDown(listener: (node: string) => void): void;
  /** The nodes heard from within NODE_DOWN_MS, this one included. */
  liveNodes(): string[];
  /** `ok`, or why the bus is down, for `/readyz`. */
  status(): string;
  /**
   * Runs a Redis command on the shared store (counters of the cluster-wide budgets); rejects at
   * once while the bus is down. Null on {@link soloBus}.
   */
  command: ((name: string, ...args: (string | number)[]) => Promise<unknown>) | null;
  /** Stops publishing, leaves the bus and closes its connections. */
  close(): Promise<void>;
}

/** Every how often a node tells the others it is alive. */
export const NODE_HEARTBEAT_MS = 2000;

/** How long a node may stay silent before the others count it as down and drop what it held (its players' presences). */
export const NODE_DOWN_MS = 6000;

/** The bus of a server without `REDIS_URL`: one node, nothing crosses. */
export function soloBus(node: string): Bus {
  return {
    node,
    clustered: false,
    publish() {},
    subscribe() {},
    onReconnect() {},
    onNodeDown() {},
    liveNodes: () => [node],
    status: () => 'ok',
    command: null,
    close: async () => {},
  };
}
