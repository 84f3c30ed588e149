/**
 * What this node's Realtime tells the other nodes of the cluster, and what it does with what
 * they tell it (docs/cluster.md, "Broadcasts and presence"). Two bus channels:
 *
 * * `broadcast`: a client broadcast (socket push or REST API) as the sender's node delivered it,
 *   already authorised and stamped there; a receiving node hands it to its own members of the
 *   topic through the same delivery (privacy, read policies, batches), never checking or stamping
 *   it again. It is published only while another node has members of the topic.
 * * `members`: which topics each node has members of (`topic`), presence changes (`diff`), and
 *   a node's whole state (`state`: its topics and presences), which replaces what the others held
 *   of it. A node sends its state asking for the others' when it starts, when the bus is back,
 *   and while a live node's state is unknown to it (a node it counted as down is heard again).
 *
 * A node that goes down (bus.onNodeDown) leaves: its topics are forgotten and its presences
 * leave, each member here told once.
 */
import { NODE_HEARTBEAT_MS, type Bus } from '../cluster/bus.js';
import type { BroadcastBatches } from './batches.js';
import type { Channel } from './channel.js';
import { deliverBroadcast, deliverPresenceDiff } from './delivery.js';
import type { PresenceRegistry } from './presence.js';
import type { Broadcast } from './protocol.js';
import { isEmptyDiff, roomName, roomParts, type PresenceDiff, type RoomPresences } from './presence-wire.js';

/** The bus channel of relayed client broadcasts. */
export const BROADCAST_CHANNEL = 'broadcast';
/** The bus channel of topic membership and presence. */
export const MEMBERS_CHANNEL = 'members';

/** A client broadcast on the bus: binary payloads travel as base64 in `bytes`, JSON ones in `payload`. */
export interface RelayedBroadcast {
  topic: string;
  private: boolean;
  /** The sender's stream of this event on its node (see deliverBroadcast). */
  key: string;
  event: string;
  payload?: unknown;
  bytes?: string;
}

/** A message of {@link MEMBERS_CHANNEL}. */
export type MembersMessage =
  | { type: 'state'; ask: boolean; topics: string[]; presences: RoomPresences[] }
  | { type: 'topic'; topic: string; open: boolean }
  | { type: 'diff'; topic: string; private: boolean; diff: PresenceDiff };

/** What the rest of Realtime tells the relay. */
export interface Relay {
  /** The first local member of `topic` joined. */
  topicOpened(topic: string): void;
  /** The last local member of `topic` left. */
  topicClosed(topic: string): void;
  /** A client broadcast was delivered here (authorised and stamped): the other nodes' members get it too. */
  broadcast(topic: string, isPrivate: boolean, item: Broadcast, key: string): void;
  /** A local presence changed: the other nodes hold it and tell their members. */
  presenceChanged(topic: string, isPrivate: boolean, diff: PresenceDiff): void;
  /** Stops asking the other nodes. */
  close(): void;
}

/** The relay of a cluster of one: nothing crosses. */
const SOLO_RELAY: Relay = { topicOpened() {}, topicClosed() {}, broadcast() {}, presenceChanged() {}, close() {} };

/** The topics the other nodes have members of. */
class TopicInterest {
  private readonly byNode = new Map<string, Set<string>>();
  /** topic -> how many other nodes have members of it. */
  private readonly holders = new Map<string, number>();

  wanted(topic: string): boolean {
    return this.holders.has(topic);
  }

  set(node: string, topic: string, open: boolean): void {
    let topics = this.byNode.get(node);
    if (!topics) this.byNode.set(node, (topics = new Set()));
    if (open === topics.has(topic)) return;
    if (open) topics.add(topic);
    else topics.delete(topic);
    const count = (this.holders.get(topic) ?? 0) + (open ? 1 : -1);
    if (count > 0) this.holders.set(topic, count);
    else this.holders.delete(topic);
  }

  replace(node: string, topics: readonly string[]): void {
    this.drop(node);
    for (const topic of topics) this.set(node, topic, true);
  }

  drop(node: string): void {
    for (const topic of this.byNode.get(node) ?? []) this.set(node, topic, false);
    this.byNode.delete(node);
  }
}

/** What a relay works on: the bus and this node's members, batches and presences. */
export interface RelayParts {
  bus: Bus;
  topics: Map<string, Set<Channel>>;
  batches: BroadcastBatches;
  presence: PresenceRegistry;
}

/** The broadcast as it was sent on the bus. */
function readBroadcast(message: RelayedBroadcast): Broadcast {
  if (message.bytes !== undefined) return { event: message.event, payload: Buffer.from(message.bytes, 'base64'), binary: true };
  return { event: message.event, payload: message.payload, binary: false };
}

/** The relay of this node on `parts.bus` (see the module comment); {@link SOLO_RELAY} without a cluster. */
export function createRelay(parts: RelayParts): Relay {
  const { bus, topics, batches, presence } = parts;
  if (!bus.clustered) return SOLO_RELAY;
  const interest = new TopicInterest();
  /** The other nodes whose state this node holds. */
  const known = new Set<string>();
  let answering = false;

  const publish = (message: MembersMessage) => bus.publish(MEMBERS_CHANNEL, message);
  const publishState = (ask: boolean) => publish({ type: 'state', ask, topics: [...topics.keys()], presences: presence.snapshot() });
  const deliverDiff = (room: string, diff: PresenceDiff) => {
    if (isEmptyDiff(diff)) return;
    const { topic, private: isPrivate } = roomParts(room);
    deliverPresenceDiff(topics.get(topic), topic, isPrivate, diff);
  };
  const deliverDiffs = (diffs: Map<string, PresenceDiff>) => diffs.forEach((diff, room) => deliverDiff(room, diff));

  function receiveMembers(message: MembersMessage, from: string): void {
    if (message.type === 'topic') return interest.set(from, message.topic, message.open);
    if (message.type === 'diff') {
      const room = roomName(message.topic, message.private);
      return deliverDiff(room, presence.remote.apply(from, room, message.diff));
    }
    known.add(from);
    interest.replace(from, message.topics);
    deliverDiffs(presence.remote.replace(from, message.presences));
    if (message.ask && !answering) {
      // Asks heard within one turn get one answer.
      answering = true;
      setImmediate(() => {
        answering = false;
        publishState(false);
      });
    }
  }

  bus.subscribe(MEMBERS_CHANNEL, (message, from) => receiveMembers(message as MembersMessage, from));
  bus.subscribe(BROADCAST_CHANNEL, (message, from) => {
    const relayed = message as RelayedBroadcast;
    const members = topics.get(relayed.topic);
    if (members) deliverBroadcast(members, relayed.topic, relayed.private, readBroadcast(relayed), `${from}\0${relayed.key}`, null, batches);
  });
  bus.onNodeDown((node) => {
    known.delete(node);
    interest.drop(node);
    deliverDiffs(presence.remote.drop(node));
  });
  bus.onReconnect(() => publishState(true));
  // A live node whose state this node lacks (it was counted as down, or its answer was lost) is asked again.
  const recheck = setInterval(() => {
    if (bus.liveNodes().some((node) => node !== bus.node && !known.has(node))) publishState(true);
  }, NODE_HEARTBEAT_MS);
  recheck.unref();
  publishState(true);

  return {
    topicOpened: (topic) => publish({ type: 'topic', topic, open: true }),
    topicClosed: (topic) => publish({ type: 'topic', topic, open: false }),
    broadcast(topic, isPrivate, item, key) {
      if (!interest.wanted(topic)) return;
      const relayed: RelayedBroadcast = { topic, private: isPrivate, key, event: item.event };
      if (item.binary) relayed.bytes = (item.payload as Buffer).toString('base64');
      else relayed.payload = item.payload;
      bus.publish(BROADCAST_CHANNEL, relayed);
    },
    presenceChanged: (topic, isPrivate, diff) => publish({ type: 'diff', topic, private: isPrivate, diff }),
    close: () => clearInterval(recheck),
  };
}
