import type { Bus } from '../cluster/index.js';
import type { Database } from '../db/index.js';
import type { Channel } from './channel.js';
import type { BroadcastBatches } from './batches.js';
import { deliverBroadcast } from './delivery.js';
import {
  MAX_BROADCAST_BYTES,
  MAX_DATABASE_BROADCASTS_PER_SECOND,
  MAX_DATABASE_BROADCASTS_PER_STATEMENT,
  MAX_DATABASE_BROADCASTS_PER_TOPIC_PER_DRAIN,
  TokenBucket,
} from './limits.js';
import { createLane } from './lane.js';
import type { Lane } from './lane.js';
import { BROADCAST_DRAIN_LIMIT, drainBroadcasts, readCaptured } from './messages.js';
import { fitsBinaryBroadcast } from './protocol.js';
import { BROADCASTS_BUS_CHANNEL, LastDrain, runDrain } from './change-relay.js';
import type { RelayedBroadcasts } from './change-relay.js';

/** Why database messages of one drain were not delivered, and how many. */
interface Undelivered {
  oversized: number;
  perStatement: number;
  perTopic: number;
  perSecond: number;
  longNames: number;
}

function describe(undelivered: Undelivered): string | null {
  const parts: string[] = [];
  if (undelivered.oversized) parts.push(`${undelivered.oversized} with a payload over ${MAX_BROADCAST_BYTES} bytes`);
  if (undelivered.perStatement) parts.push(`${undelivered.perStatement} past ${MAX_DATABASE_BROADCASTS_PER_STATEMENT} of one statement`);
  if (undelivered.perTopic) parts.push(`${undelivered.perTopic} past ${MAX_DATABASE_BROADCASTS_PER_TOPIC_PER_DRAIN} of one topic at once`);
  if (undelivered.perSecond) parts.push(`${undelivered.perSecond} past ${MAX_DATABASE_BROADCASTS_PER_SECOND} a second`);
  if (undelivered.longNames) parts.push(`${undelivered.longNames} with a topic or event over 255 bytes`);
  return parts.length > 0 ? parts.join(', ') : null;
}

/**
 * Creates the delivery of messages inserted into realtime.messages (realtime.send,
 * realtime.broadcast_changes, direct inserts), fed with the records of one drain in commit order. Each message goes to the members of its topic through the one broadcast
 * delivery (public rows to public members, private rows to private members whose read policies
 * allow broadcasts), with `meta: {id}` as hosted sends it, and never twice to a channel that was
 * just sent it as a replay. A message of a topic nobody has joined goes nowhere and spends no
 * budget, so a statement flooding topics nobody hears cannot crowd out one that is heard. Bounded: per drain at most MAX_DATABASE_BROADCASTS_PER_TOPIC_PER_DRAIN
 * per topic, at most MAX_DATABASE_BROADCASTS_PER_SECOND overall, payloads within the broadcast
 * limit; what is dropped is logged once per drain.
 */
export function createDatabaseBroadcaster(topics: Map<string, Set<Channel>>, batches: BroadcastBatches, log: (message: string) => void): (records: string[]) => void {
  const budget = new TokenBucket(MAX_DATABASE_BROADCASTS_PER_SECOND);
  return (records) => {
    // One instant per drain: the budget does not refill while a drain is being delivered.
    const now = performance.now();
    const perTopic = new Map<string, number>();
    const undelivered: Undelivered = { oversized: 0, perStatement: 0, perTopic: 0, perSecond: 0, longNames: 0 };
    for (const record of records) {
      const captured = readCaptured(record);
      if ('dropped' in captured) {
        undelivered.perStatement += captured.dropped;
        continue;
      }
      const message = captured.message;
      if (message.oversized) {
        undelivered.oversized += 1;
        continue;
      }
      const topic = `realtime:${message.topic}`;
      if (!fitsBinaryBroadcast(topic, message.event)) {
        undelivered.longNames += 1;
        continue;
      }
      const members = topics.get(topic);
      if (!members) continue;
      const sent = perTopic.get(topic) ?? 0;
      if (sent >= MAX_DATABASE_BROADCASTS_PER_TOPIC_PER_DRAIN) {
        undelivered.perTopic += 1;
        continue;
      }
      if (!budget.take(1, now)) {
        undelivered.perSecond += 1;
        continue;
      }
      perTopic.set(topic, sent + 1);
      const item = { event: message.event, payload: message.payload, binary: message.binary, meta: { id: message.id } };
      deliverBroadcast(members, topic, message.private, item, `${topic}\0database\0${message.id}`, null, batches);
    }
    const summary = describe(undelivered);
    if (summary) log(`realtime: database broadcasts not delivered: ${summary}`);
  };
}

/**
 * The lane of database broadcasts (lane.ts): each drain takes at most BROADCAST_DRAIN_LIMIT
 * captured messages from realtime.broadcasts and hands them to `deliver`; `onError` hears a
 * failed drain. On a node of a cluster the drainer (drain-lease.ts) also publishes each drain's
 * messages, without the markers of statements past their bound (counted once, by the drainer),
 * before its delete commits (change-relay.ts); every other node hands what it hears to its own
 * `deliver`, which applies its own bounds to its own members.
 */
export function createBroadcastLane(db: Database, deliver: (records: string[]) => void, onError: (error: unknown) => void, bus: Bus): Lane {
  const last = new LastDrain();
  bus.subscribe(BROADCASTS_BUS_CHANNEL, (message) => {
    const { ids, records } = message as RelayedBroadcasts;
    const fresh = records.filter((_, i) => !last.has(ids[i]!));
    last.remember(ids);
    if (fresh.length > 0) deliver(fresh);
  });
  return createLane(async () => {
    return runDrain(db, bus, async (queue) => {
      const drained = await drainBroadcasts(queue);
      const fresh = drained.filter((row) => !last.has(row.id));
      last.remember(drained.map((row) => row.id));
      if (fresh.length > 0) deliver(fresh.map((row) => row.record));
      const relayed = fresh.filter((row) => !row.marker);
      if (bus.clustered && relayed.length > 0) bus.publish(BROADCASTS_BUS_CHANNEL, { ids: relayed.map((row) => row.id), records: relayed.map((row) => row.record) } satisfies RelayedBroadcasts);
      return drained.length === BROADCAST_DRAIN_LIMIT;
    });
  }, onError);
}
