import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Bus } from '../cluster/index.js';
import type { BudgetStore } from '../cluster/budget-store.js';
import { createSharedCounts } from '../cluster/shared-counts.js';
import { shareRates } from '../cluster/shared-rates.js';
import { soloBus } from '../cluster/bus.js';
import type { Claims, Database } from '../db/index.js';
import { authorizeReads, authorizeSends, authorizeWrites } from './authorization.js';
import type { ReadVerdict } from './authorization.js';
import { createBroadcastBatches } from './batches.js';
import type { BroadcastBatches } from './batches.js';
import { handleBroadcastApi } from './broadcast-api.js';
import type { BroadcastApiDeps } from './broadcast-api.js';
import { CHANGES_CHANNEL, SCHEMA_CHANNEL, installCapture } from './capture.js';
import { createChangeAdmission, installChangeSender } from './change-senders.js';
import type { Channel } from './channel.js';
import { createBroadcastLane, createDatabaseBroadcaster } from './database-broadcast.js';
import { createDispatcher } from './dispatch.js';
import { startDraining } from './drain-lease.js';
import type { Dispatcher } from './dispatch.js';
import { startHousekeeping } from './housekeeping.js';
import type { Hub } from './hub.js';
import {
  MAX_API_REQUESTS_PER_ADDRESS_PER_SECOND,
  MAX_AUTHORIZATIONS_IN_FLIGHT,
  MAX_AUTHORIZATIONS_PER_ADDRESS,
  MAX_CHANGES_PER_STATEMENT,
  MAX_PERSISTS_PER_SECOND,
  MAX_SENDER_MESSAGES_PER_SECOND,
  KeyedBuckets,
  TokenBucket,
} from './limits.js';
import { BROADCASTS_CHANNEL, installMessages, readReplay, storeBroadcast } from './messages.js';
import { PLAIN_POLICY } from './policy.js';
import type { ChannelPolicy } from './policy.js';
import { PresenceRegistry } from './presence.js';
import type { Broadcast } from './protocol.js';
import { loadReadPolicies } from './read-policies.js';
import { createRelay } from './relay.js';
import type { Relay } from './relay.js';
import type { ReadPolicyCatalogue } from './read-policies.js';
import { batchedReadChecks } from './read-checks.js';
import { batchedWriteChecks } from './write-checks.js';
import { KeyedSlots } from './slots.js';
import { acceptSockets } from './sockets.js';
import type { SocketEndpoint } from './sockets.js';
import { SubscribedTables } from './subscribed-tables.js';
import { loadTableCatalogue } from './table-catalogue.js';
import type { TableCatalogue } from './table-catalogue.js';
import { clientAddresses } from '../http/client-address.js';
import { log as serverLog } from '../log.js';
import { joinAuthorizations, realtimeChangesDropped } from '../metrics.js';

export { TOO_MANY_SOCKETS } from './sockets.js';

/** What Realtime needs from the server: the database, token verification and the anon key. */
export interface RealtimeDeps {
  db: Database;
  /** Verifies a JWT and returns its claims; throws on a bad or expired token. */
  verifyToken(token: string): Promise<Claims>;
  anonKey: string;
  /** Sockets open at once per client IP address; defaults to {@link DEFAULT_MAX_SOCKETS_PER_ADDRESS}. */
  maxSocketsPerAddress?: number;
  /** The client address of a request (the server's `TRUSTED_PROXIES` reading); defaults to the socket's peer. */
  clientAddress?: (req: IncomingMessage) => string;
  /** The application's rules for its topics; without one the transport behaves as plain Supabase Realtime ({@link PLAIN_POLICY}). */
  policy?: ChannelPolicy;
  /** The bus to the cluster's other nodes (server/cluster/); a cluster of one without it. */
  bus?: Bus;
  /**
   * Where the budgets a client could multiply over nodes (a sender's messages, sockets per
   * address) are counted over the cluster; without one they are this server's alone.
   */
  budgets?: BudgetStore | null;
}

/**
 * Sockets one IP address may hold open at once unless configured (`REALTIME_MAX_SOCKETS_PER_IP`).
 * Every per-socket bound (channels, queued bytes, messages a second) multiplies by it; 200 lets
 * a school or office of a couple of hundred players share one address, one socket each.
 */
export const DEFAULT_MAX_SOCKETS_PER_ADDRESS = 200;

/** The attached Realtime service. */
export interface RealtimeServer {
  /**
   * Serves an HTTP request for `path` under `/realtime/v1` (the broadcast REST API); false when
   * no route matches, for the caller to answer with a 404.
   */
  handleHttp(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean>;
  /** Closes every channel joined with a token of `sessionId` (its session ended). */
  endSession(sessionId: string): void;
  /** What the metrics read: open sockets, joined channels, distinct signed-in users with a channel, messages received. */
  stats(): { connections: number; channels: number; playersOnline: number; received: number };
  /** Closes every socket and stops listening for changes. */
  close(): Promise<void>;
}

/** The shared state a hub is made of, besides the database and the server's dependencies. */
interface HubParts {
  catalogue: TableCatalogue;
  readPolicies: ReadPolicyCatalogue;
  dispatcher: Dispatcher;
  batches: BroadcastBatches;
  topics: Map<string, Set<Channel>>;
  presence: PresenceRegistry;
  relay: Relay;
  senderBudgets: KeyedBuckets;
  log(message: string): void;
}

/** Stores a broadcast for replay within MAX_PERSISTS_PER_SECOND over the whole server; null when over it or failed (logged). */
function createPersister(db: Database, log: (message: string) => void): (topic: string, item: Broadcast) => Promise<string | null> {
  const persistBudget = new TokenBucket(MAX_PERSISTS_PER_SECOND);
  return async (topic, item) => {
    if (!persistBudget.take()) {
      log(`realtime: a broadcast on ${topic} was not stored: more than ${MAX_PERSISTS_PER_SECOND} a second`);
      return null;
    }
    try {
      return await storeBroadcast(db, topic, item);
    } catch (error) {
      log(`realtime: storing a broadcast on ${topic} failed: ${(error as Error).message}`);
      return null;
    }
  };
}

/** Counts and logs the changes of statements past MAX_CHANGES_PER_STATEMENT that a drain found uncaptured. */
function reportDropped(log: (message: string) => void): (count: number) => void {
  return (count) => {
    realtimeChangesDropped.inc(count);
    log(`realtime: ${count} row changes not captured: past ${MAX_CHANGES_PER_STATEMENT} of one statement`);
  };
}

/** The verdict of a read check the catalogue answers: nothing granted. */
const NOTHING_READ: ReadVerdict = { broadcast: false, presence: false, sender: null };

/**
 * The hub's policy checks. A read check under a role the read policies grant nothing is refused
 * from the catalogue, once a re-read under way is done (so a policy just created counts), without
 * a transaction; the other read checks of one caller run in batches (read-checks.ts), one
 * transaction a batch, within its address's places and the server's
 * (MAX_AUTHORIZATIONS_PER_ADDRESS, MAX_AUTHORIZATIONS_IN_FLIGHT); write checks of any callers run
 * in batches too (write-checks.ts), each within one of the server's places.
 */
function policyChecks(db: Database, senderSql: string | null, readPolicies: ReadPolicyCatalogue): Pick<Hub, 'authorizeRead' | 'authorizeWrite'> {
  const slots = new KeyedSlots(MAX_AUTHORIZATIONS_PER_ADDRESS, MAX_AUTHORIZATIONS_IN_FLIGHT);
  const readCheck = batchedReadChecks(slots, (claims, topics) => authorizeReads(db, claims, topics, senderSql));
  const writeCheck = batchedWriteChecks(slots, (checks) => authorizeWrites(db, checks));
  return {
    async authorizeRead(claims, topic, address, deadline = Infinity) {
      await readPolicies.settled();
      if (readPolicies.grantsNothing(claims.role)) {
        joinAuthorizations.inc({ answered_by: 'catalogue' });
        return NOTHING_READ;
      }
      return readCheck(claims, topic, address, deadline);
    },
    authorizeWrite: (claims, topic, extension, address) => writeCheck({ claims, topic, extension }, address),
  };
}

function createHub(db: Database, deps: RealtimeDeps, policy: ChannelPolicy, parts: HubParts): Hub {
  const { catalogue, senderBudgets } = parts;
  return {
    verifyToken: deps.verifyToken,
    lookup: catalogue.lookup,
    refreshTablesSoon: () => catalogue.refreshSoon(),
    catalogueSettled: () => catalogue.settled(),
    access: (role, table) => catalogue.access(role, table),
    ...policyChecks(db, policy.senderSql, parts.readPolicies),
    replay: (topic, since, limit) => readReplay(db, topic, since, limit),
    persist: createPersister(db, parts.log),
    takeSenderMessage: (sender, count = 1) => senderBudgets.take(sender, count),
    policy,
    dispatcher: parts.dispatcher,
    batches: parts.batches,
    topics: parts.topics,
    presence: parts.presence,
    relay: parts.relay,
    sessionEnders: new Set(),
    log: parts.log,
  };
}

/** Joined channels and distinct signed-in users holding one, over every topic. */
function countMembers(topics: Map<string, Set<Channel>>): { channels: number; playersOnline: number } {
  let channels = 0;
  const players = new Set<string>();
  for (const members of topics.values()) {
    channels += members.size;
    for (const channel of members) if (channel.claims.role === 'authenticated' && channel.claims.sub) players.add(channel.claims.sub);
  }
  return { channels, playersOnline: players.size };
}

/** The REST broadcast API's dependencies: the hub, the key, the send checks and a budget per client address. */
function broadcastApiDeps(db: Database, hub: Hub, deps: RealtimeDeps, addressBudgets: KeyedBuckets, clientAddress: (req: IncomingMessage) => string): BroadcastApiDeps {
  return {
    hub,
    anonKey: deps.anonKey,
    verifyToken: deps.verifyToken,
    authorizeSends: (claims, topics, persistTopics) => authorizeSends(db, claims, hub.policy.senderSql, topics, persistTopics),
    takeAddressRequest: (address) => addressBudgets.take(address),
    clientAddress,
  };
}

/**
 * Serves Supabase Realtime on `/realtime/v1/websocket` of `server`: Phoenix vsn 2.0.0 and
 * 1.0.0, heartbeat, postgres_changes under each subscriber's RLS, broadcast (also from the
 * database, stored and replayed) and token updates, under the application's `policy` for its
 * topics when it gives one. Installs the embedded change capture and message capture, counts
 * each row change a subscriber follows against its writer's message budget (change-senders.ts;
 * that budget and the sockets per address are counted over the cluster in `deps.budgets`),
 * removes old stored messages every MESSAGE_PRUNE_MS, and resolves once it listens.
 */
export async function attachRealtime(server: Server, deps: RealtimeDeps): Promise<RealtimeServer> {
  const { db } = deps;
  const log = (message: string) => serverLog.warn(message);
  await installChangeSender(db, deps.policy?.senderSql ?? null);
  await installCapture(db);
  await installMessages(db);
  const catalogue = await loadTableCatalogue(db, log);
  const readPolicies = await loadReadPolicies(db, log);
  const topics = new Map<string, Set<Channel>>();
  const batches = createBroadcastBatches(topics);
  const onError = (error: unknown) => log(`realtime: change or database broadcast delivery failed: ${(error as Error).message}`);
  const senderBudgets = new KeyedBuckets(MAX_SENDER_MESSAGES_PER_SECOND);
  const admit = createChangeAdmission((sender) => senderBudgets.take(sender), log);
  const bus = deps.bus ?? soloBus('solo');
  const subscribed = new SubscribedTables(db, bus.node, log);
  await subscribed.start(bus.clustered);
  bus.onNodeDown((node) => void subscribed.forget(node));
  const dispatcher = createDispatcher(db, subscribed, { onError, onDropped: reportDropped(log), admit, bus, log });
  const broadcastLane = createBroadcastLane(db, createDatabaseBroadcaster(topics, batches, log), onError, bus);
  const draining = await startDraining(db, bus, [{ channel: CHANGES_CHANNEL, lane: dispatcher }, { channel: BROADCASTS_CHANNEL, lane: broadcastLane }], log);
  const stopWatching = await db.listen(SCHEMA_CHANNEL, () => {
    void catalogue.reload();
    void readPolicies.reload();
  });
  const addressBudgets = new KeyedBuckets(MAX_API_REQUESTS_PER_ADDRESS_PER_SECOND);
  const housekeeping = startHousekeeping(db, [senderBudgets, addressBudgets], log);
  const budgets = deps.budgets ?? null;
  const stopSharing = budgets ? shareRates(budgets, 'sender', senderBudgets) : () => undefined;
  const socketsPerAddress = createSharedCounts(budgets, 'sockets');
  const presence = new PresenceRegistry();
  const relay = createRelay({ bus, topics, batches, presence });
  const hub = createHub(db, deps, deps.policy ?? PLAIN_POLICY, { catalogue, readPolicies, dispatcher, batches, topics, presence, relay, senderBudgets, log });
  const maxSocketsPerAddress = deps.maxSocketsPerAddress ?? DEFAULT_MAX_SOCKETS_PER_ADDRESS;
  const clientAddress = deps.clientAddress ?? clientAddresses().of;
  const sockets: SocketEndpoint = acceptSockets(server, hub, { anonKey: deps.anonKey, verifyToken: deps.verifyToken, maxSocketsPerAddress, clientAddress, socketsPerAddress });
  const api = broadcastApiDeps(db, hub, deps, addressBudgets, clientAddress);
  const unlisten = (stop: () => Promise<void>) => stop().catch((error: unknown) => log(`realtime: unlisten failed: ${(error as Error).message}`));

  return {
    handleHttp: (req, res, path) => handleBroadcastApi(req, res, path, api),
    endSession(sessionId) {
      for (const end of hub.sessionEnders) end(sessionId);
    },
    stats: () => ({ connections: sockets.connections(), ...countMembers(topics), received: sockets.received() }),
    async close() {
      const pruned = housekeeping.stop();
      stopSharing();
      socketsPerAddress.stop();
      batches.close();
      await sockets.close();
      relay.close();
      await draining.stop().catch((error: Error) => log(`realtime: stopping the drains failed: ${error.message}`));
      await unlisten(stopWatching);
      await dispatcher.idle();
      await broadcastLane.idle();
      await subscribed.stop();
      await pruned;
    },
  };
}
