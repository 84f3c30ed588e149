import type { Claims } from '../db/index.js';
import type { ReadVerdict, WriteExtension } from './authorization.js';
import type { BroadcastBatches } from './batches.js';
import type { TableLookup } from './bindings.js';
import type { Access, TableInfo } from './catalog.js';
import type { Channel } from './channel.js';
import type { Dispatcher } from './dispatch.js';
import type { ChannelPolicy } from './policy.js';
import type { PresenceRegistry } from './presence.js';
import type { Broadcast } from './protocol.js';
import type { Relay } from './relay.js';

/** What every connection shares: token checks, tables, access rules, the dispatcher and topic members. */
export interface Hub {
  verifyToken(token: string): Promise<Claims>;
  lookup: TableLookup;
  /**
   * Asks for the publication to be re-read (and new tables captured) after a join named a table
   * the catalogue lacks; at most once per CATALOGUE_REFRESH_MS, in the background.
   */
  refreshTablesSoon(): void;
  /** Resolves once a catalogue refresh under way (after a schema change) is done; at once when none is. */
  catalogueSettled(): Promise<void>;
  access(role: string, table: TableInfo): Promise<Access>;
  /**
   * Read policies of realtime.messages for `topic` (without `realtime:`), asked for a socket of
   * `address`: nothing granted without asking the database when no read policy can grant the
   * role anything; otherwise in one transaction with the caller's other checks of the moment
   * (read-checks.ts), waiting its turn among the address's checks, and refused unchecked with
   * JOIN_WAITED_TOO_LONG (a JoinError) if that turn comes after `deadline` (performance.now();
   * never when none is given).
   */
  authorizeRead(claims: Claims, topic: string, address: string, deadline?: number): Promise<ReadVerdict>;
  /** Write policies of realtime.messages for a message of `extension` on `topic`, asked for a socket of `address`, in one transaction with other callers' write checks of the moment (write-checks.ts). */
  authorizeWrite(claims: Claims, topic: string, extension: WriteExtension, address: string): Promise<boolean>;
  /** The stored messages of `topic` (without `realtime:`) a join replays: since `since` (ms epoch), at most `limit`, oldest first. */
  replay(topic: string, since: number, limit: number): Promise<Broadcast[]>;
  /**
   * Stores a delivered broadcast on `topic` (without `realtime:`) for replay, once its sender's
   * policies allowed it; resolves to its id, or null when the server's budget of stored messages
   * is spent or the insert failed (logged).
   */
  persist(topic: string, item: Broadcast): Promise<string | null>;
  /**
   * Takes `count` messages (one unless given) from a sender's budget: a named sender's (see
   * {@link ChannelPolicy.senderSql}) across its sockets and REST requests, or another sender key
   * of the REST API. False, taking none, when fewer are left.
   */
  takeSenderMessage(sender: string, count?: number): boolean;
  /** The application's rules for its topics (`PLAIN_POLICY` when it gave none). */
  policy: ChannelPolicy;
  dispatcher: Dispatcher;
  /** Broadcasts gathered for channels that take them in batches. */
  batches: BroadcastBatches;
  /** The joined channels of each topic (with `realtime:`). */
  topics: Map<string, Set<Channel>>;
  /** Who is tracked on which topic, on every node. */
  presence: PresenceRegistry;
  /** What crosses to the cluster's other nodes: topics with members here, client broadcasts, presence changes. */
  relay: Relay;
  /** One function per open connection that closes its channels joined with a token of the ended session. */
  sessionEnders: Set<(sessionId: string) => void>;
  log(message: string): void;
}
