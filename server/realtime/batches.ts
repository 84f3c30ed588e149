/**
 * Broadcast batches: a channel that joins with `config.broadcast.batch: true` on a 2.0.0 socket
 * is sent the JSON broadcasts of its topic gathered over BATCH_WINDOW_MS, as one `batch`
 * broadcast whose payload is `{events: [{event, payload}, ...]}`, instead of one message each.
 * This is an extension of this server (hosted Supabase ignores the option and sends each
 * broadcast alone, which clients must still take). A crowd on one screen otherwise hands every
 * client hundreds of small messages a second, each decoded on its own.
 *
 * Within a window a sender's newer broadcast of an event replaces its older one (latest pose
 * per sender wins), and a socket that is behind keeps only the newest batch of each topic. A
 * channel joined without `broadcast.self` is never sent its own messages: it gets the window's
 * batch without them, or nothing when they were all its own. A batch holds at most
 * MAX_BATCH_EVENTS events and about MAX_BATCH_BYTES of payloads; a larger window is sent as
 * several batches. Stored messages (with `meta`) and binary payloads are never batched. A
 * window that cannot be encoded is dropped and logged; it never reaches the timer's caller.
 * While the server is behind, members are sent far topics' windows, then near ones, less often
 * (thinning.ts): a thinned member is sent, one window in THIN_EVERY, the newest broadcast of each
 * stream since it was last sent, and the older ones it was not sent count as shed. (When thinning
 * ends, what was kept for thinned members and not yet sent is dropped: at most THIN_EVERY - 1
 * windows of broadcasts that newer ones replace.)
 */
import { audience, type Channel } from './channel.js';
import { errorMessage, guarded } from './guard.js';
import { encodeBinaryJsonBroadcast, fitsBinaryBroadcast, type Broadcast } from './protocol.js';
import { log } from '../log.js';
import { Thinning } from './thinning.js';
import { countShed } from './wire.js';

/**
 * Milliseconds a batch gathers broadcasts before it is sent: a server tick of 40 a second. At
 * 250 players on one screen, 25 ms against 50 took the median pose latency from 40 to 26 ms at
 * the same server and client CPU (bench:crowd).
 */
export const BATCH_WINDOW_MS = 25;
/** The event name of a batch. */
export const BATCH_EVENT = 'batch';
/** Most events in one batch message. */
export const MAX_BATCH_EVENTS = 256;
/** Payload bytes after which a batch message is closed and the next one begun. */
export const MAX_BATCH_BYTES = 64 * 1024;

/** One gathered broadcast: its event and payload as JSON, and the channel that must not get it back. */
interface Gathered {
  json: string;
  skip: Channel | null;
}

/** A topic's broadcasts of one privacy, gathered in the current window by sender stream. */
interface PendingTopic {
  topic: string;
  isPrivate: boolean;
  items: Map<string, Gathered>;
}

/** Whether `member` takes its broadcasts in batches. */
export function takesBatches(member: Channel): boolean {
  return member.broadcastBatch && member.conn.vsn === '2.0.0';
}

/** Whether `item` may travel in a batch: a JSON payload that is not a stored message. */
export function isBatchable(item: Broadcast): boolean {
  return !item.binary && item.meta === undefined;
}

/** The batch messages of `items` (in the order they were gathered), split at the bounds. */
function encodeBatches(topic: string, items: Gathered[]): Buffer[] {
  const messages: Buffer[] = [];
  let parts: string[] = [];
  let bytes = 0;
  const close = () => {
    messages.push(encodeBinaryJsonBroadcast(topic, BATCH_EVENT, `{"events":[${parts.join(',')}]}`));
    parts = [];
    bytes = 0;
  };
  for (const item of items) {
    if (parts.length > 0 && (parts.length === MAX_BATCH_EVENTS || bytes + item.json.length > MAX_BATCH_BYTES)) close();
    parts.push(item.json);
    bytes += item.json.length;
  }
  if (parts.length > 0) close();
  return messages;
}

/** Broadcasts waiting for the end of their window; see the module comment. */
export interface BroadcastBatches {
  /**
   * Gathers `item` on `topic` (with `realtime:`) for the topic's batch-taking members of the same
   * privacy; `key` names the sender's stream of this event, `skip` the sending channel when it
   * did not ask for its own messages.
   */
  add(topic: string, isPrivate: boolean, key: string, item: Broadcast, skip: Channel | null): void;
  /** Ends the window now: sends what is gathered (the window's timer does this). */
  flush(): void;
  /** Stops the window timer; what is gathered is dropped. */
  close(): void;
}

/** A topic's broadcasts kept for thinned members since they were last sent, and how many were gathered meanwhile. */
type KeptTopic = PendingTopic & { gathered: number };

/** Adds a window's broadcasts to what `held` keeps for thinned members, the newest per stream. */
function hold(held: Map<string, KeptTopic>, windowKey: string, window: PendingTopic): void {
  let entry = held.get(windowKey);
  if (!entry) held.set(windowKey, (entry = { topic: window.topic, isPrivate: window.isPrivate, items: new Map(), gathered: 0 }));
  for (const [key, item] of window.items) {
    entry.items.delete(key);
    entry.items.set(key, item);
  }
  entry.gathered += window.items.size;
}

/**
 * Sends one topic's window to the batch-taking members in `topics`: `current` to those on time, `kept` (when
 * this window sends it) to the thinned ones, counting what they were not sent as shed.
 */
function sendWindow(
  topics: ReadonlyMap<string, Set<Channel>>,
  thinning: Pick<Thinning, 'thinned'>,
  topic: string,
  isPrivate: boolean,
  current: Gathered[],
  kept: KeptTopic | null,
): void {
  const keptItems = kept ? [...kept.items.values()] : [];
  const shared = new Map<Gathered[], Buffer[]>();
  for (const member of audience(topics.get(topic), isPrivate, 'broadcast')) {
    if (!takesBatches(member)) continue;
    const kind = member.conn.outbound.nearness(topic);
    const thinned = thinning.thinned(kind);
    if (thinned && !kept) continue;
    if (thinned) countShed(kind, kept!.gathered - keptItems.length);
    const gathered = thinned ? keptItems : current;
    if (gathered.length === 0) continue;
    let messages: Buffer[];
    if (gathered.some((item) => item.skip === member)) messages = encodeBatches(topic, gathered.filter((item) => item.skip !== member));
    else if (!(messages = shared.get(gathered)!)) shared.set(gathered, (messages = encodeBatches(topic, gathered)));
    for (let i = 0; i < messages.length; i++) member.conn.outbound.ephemeral(`${topic}\0${BATCH_EVENT}\0${i}`, messages[i]!, true, topic);
  }
}

/** Batches for the members in `topics` (the joined channels of each topic), thinned by `thinning` while the server is behind. */
export function createBroadcastBatches(
  topics: ReadonlyMap<string, Set<Channel>>,
  thinning: Pick<Thinning, 'windowEnded' | 'thinned' | 'keptWindow'> = new Thinning(),
): BroadcastBatches {
  const pending = new Map<string, PendingTopic>();
  /** While members are thinned: each topic's newest broadcast per stream since they were last sent, and how many were gathered. */
  const held = new Map<string, KeptTopic>();
  let timer: NodeJS.Timeout | null = null;
  /** When the window's timer is due (performance.now()). */
  let dueAt = 0;

  function arm(): void {
    dueAt = performance.now() + BATCH_WINDOW_MS;
    timer = setTimeout(guarded('the broadcast batch timer', flush), BATCH_WINDOW_MS);
  }

  function flush(): void {
    if (timer) {
      clearTimeout(timer);
      thinning.windowEnded(performance.now() - dueAt);
    }
    timer = null;
    // Far topics are thinned first: while they are not, nobody is.
    if (thinning.thinned('far')) for (const [windowKey, window] of pending) hold(held, windowKey, window);
    else held.clear();
    const sendKept = thinning.keptWindow();
    const windowKeys = new Set([...pending.keys(), ...(sendKept ? held.keys() : [])]);
    // Each topic on its own: a window that cannot be sent is dropped (and logged), the others go out.
    for (const windowKey of windowKeys) {
      const window = pending.get(windowKey) ?? held.get(windowKey)!;
      try {
        sendWindow(topics, thinning, window.topic, window.isPrivate, [...(pending.get(windowKey)?.items.values() ?? [])], sendKept ? held.get(windowKey) ?? null : null);
      } catch (error) {
        log.error(`realtime: the batch of ${window.topic} was dropped: ${errorMessage(error)}`);
      }
    }
    pending.clear();
    if (sendKept) held.clear();
    // What thinned members are kept goes out on a later window even if nothing more is broadcast.
    if (held.size > 0) arm();
  }

  return {
    add(topic, isPrivate, key, item, skip) {
      // A batch is a binary frame: a topic its one-byte length cannot carry is never gathered.
      if (!fitsBinaryBroadcast(topic, BATCH_EVENT)) return;
      const windowKey = `${isPrivate ? 'private' : 'public'}\0${topic}`;
      let window = pending.get(windowKey);
      if (!window) pending.set(windowKey, (window = { topic, isPrivate, items: new Map() }));
      // Deleted first, so a replaced stream moves to the end: the batch keeps the order of the newest messages.
      window.items.delete(key);
      window.items.set(key, { json: `{"event":${JSON.stringify(item.event)},"payload":${JSON.stringify(item.payload ?? {})}}`, skip });
      if (!timer) arm();
    },
    flush,
    close() {
      if (timer) clearTimeout(timer);
      timer = null;
      pending.clear();
      held.clear();
    },
  };
}
