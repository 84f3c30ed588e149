/**
 * Every bound of the live layer, modelled on hosted Supabase Realtime's quotas (docs/protocols.md
 * §3 lists them with the replies a client gets). Hosted counts most of them per project; here
 * they hold per socket (and per named sender), so one client cannot spend the whole server.
 */

import { MAX_FIELD_BYTES } from './protocol.js';

/** Channels one socket may have joined at once (hosted: 100 per connection). */
export const MAX_CHANNELS_PER_SOCKET = 100;
/** Joins one socket may ask for per second (hosted: 100 per second for a whole Free project). */
export const MAX_JOINS_PER_SECOND = 20;
/** Messages (broadcasts and other channel events) one socket may send per second (hosted: 100 per project). */
export const MAX_MESSAGES_PER_SECOND = 100;
/** Broadcasts one named sender (a wallet in Tessera, see ChannelPolicy.senderSql) may send per second across all its sockets. */
export const MAX_SENDER_MESSAGES_PER_SECOND = 100;
/** Largest broadcast frame accepted, in bytes (hosted Free: 256 KB). */
export const MAX_BROADCAST_BYTES = 64 * 1024;
/** Largest frame of any kind; `ws` closes the socket with 1009 beyond it. */
export const MAX_FRAME_BYTES = 1024 * 1024;
/** Bytes handed to a socket (ws and the kernel) before further messages wait in its outbound queue. */
export const OUTBOUND_HIGH_WATER_BYTES = 256 * 1024;
/** Queued broadcast bytes per socket; past it the oldest queued broadcasts are dropped. */
export const MAX_QUEUED_BROADCAST_BYTES = 256 * 1024;
/** Queued replies and postgres_changes bytes per socket; past it the socket is closed. */
export const MAX_QUEUED_DURABLE_BYTES = 4 * 1024 * 1024;
/** While sockets behind shed broadcasts, the log tells how many at most this often (the first at once). */
export const SHED_REPORT_MS = 10_000;
/** Longest a private channel's write verdict is reused before the policies are asked again. */
export const WRITE_CHECK_MS = 5000;
/**
 * Each verdict is reused for a random time between (1 - this) and 1 times WRITE_CHECK_MS: a
 * crowd that first sent together (a walk begun at once, clients back after a restart) would
 * otherwise have all its verdicts renewed in the same instant, every 5 s.
 */
export const WRITE_CHECK_SPREAD = 0.2;
/**
 * Authorisation transactions (the read and write checks of private channels) one network
 * address may have running at once; its further checks wait their turn, so the sockets of one
 * address (up to 200 of them, 20 joins a second each) keep at most this many of the pool's
 * connections, and of the database's cores, busy.
 */
export const MAX_AUTHORIZATIONS_PER_ADDRESS = 1;
/**
 * Authorisation transactions running at once over the whole server, whatever the addresses: the
 * connections the checks have beside the pool (CHECK_CONNECTIONS, server/db/pool.ts), so REST
 * requests and change delivery always find a connection however many addresses join at once, and
 * joins never wait behind them.
 */
export const MAX_AUTHORIZATIONS_IN_FLIGHT = 4;
/**
 * Read checks of one caller (the same claims from the same address) run together in one
 * authorisation transaction (server/realtime/read-checks.ts): a player entering the world joins
 * about 13 private channels at once (its 9 pose regions, its block regions), answered in one
 * transaction. Bounds the statements of one transaction (2 per check) and so how long a batch
 * holds its connection and its address's place; a further check starts another batch.
 */
export const MAX_READ_CHECKS_PER_BATCH = 16;
/**
 * Write checks (of any callers) answered in one authorisation transaction
 * (server/realtime/write-checks.ts): a crowd walking renews one verdict per player and pose
 * channel every WRITE_CHECK_MS, a few hundred a second after a restart. Bounds the statements of
 * one transaction (2 per check).
 */
export const MAX_WRITE_CHECKS_PER_BATCH = 32;
/**
 * Write checks of one network address in one batch: the others wait for the next, so an address
 * with many sockets sending shares each transaction with the other addresses waiting.
 */
export const MAX_WRITE_CHECKS_PER_ADDRESS_IN_BATCH = 4;
/**
 * The catalogue of roles the read policies grant nothing (read-policies.ts) is re-read after
 * every schema change, and at the first join once it is this old: a role's membership or
 * BYPASSRLS changes fire no event trigger.
 */
export const READ_POLICIES_MAX_AGE_MS = 10_000;
/** The published-table catalogue is re-read at most this often, and only when a join names a table it lacks. */
export const CATALOGUE_REFRESH_MS = 5000;

/**
 * Presence events (track and untrack) one channel may send per {@link PRESENCE_WINDOW_MS}
 * (hosted: 5 per 30 s per channel); the next shuts the channel with {@link PRESENCE_RATE_LIMITED}.
 * They also count in the socket's {@link MAX_MESSAGES_PER_SECOND}.
 */
export const MAX_PRESENCE_EVENTS_PER_WINDOW = 5;
/** The window of {@link MAX_PRESENCE_EVENTS_PER_WINDOW}, from a channel's first presence event in it. */
export const PRESENCE_WINDOW_MS = 30_000;
/**
 * Largest tracked presence, in bytes: the JSON of the track payload plus the presence key
 * (hosted measures the payload against its 256 KB message quota). Past it the channel is shut
 * with {@link TRACK_TOO_LARGE}.
 */
export const MAX_PRESENCE_BYTES = 4 * 1024;
/** Distinct presence keys tracked on one topic; a track under a new key past it is refused. */
export const MAX_PRESENCE_KEYS_PER_TOPIC = 100;
/**
 * Presences (one per channel) tracked under one key of a topic, e.g. a user's tabs; one more is
 * refused. With {@link MAX_PRESENCE_KEYS_PER_TOPIC} and {@link MAX_PRESENCE_BYTES} it bounds a
 * topic's presence state at 2 MiB, under {@link MAX_QUEUED_DURABLE_BYTES}.
 */
export const MAX_PRESENCE_METAS_PER_KEY = 5;
/** Messages one REST broadcast request may carry (one second of a sender's budget). */
export const MAX_API_MESSAGES_PER_REQUEST = 100;
/**
 * REST broadcast requests one network address may make per second, counted before the token is
 * verified or any policy is asked, so a flood of requests costs no database work.
 */
export const MAX_API_REQUESTS_PER_ADDRESS_PER_SECOND = 50;
/** Largest REST broadcast request body, in bytes (the largest frame a socket may send). */
export const MAX_API_BODY_BYTES = MAX_FRAME_BYTES;

/**
 * Messages one INSERT statement into realtime.messages may hand to Realtime (for example
 * `insert into realtime.messages ... select ... from generate_series(1, 5000)`; each
 * realtime.send() call is a statement of its own); the rest stay stored (replayable) but are not
 * broadcast, and the server logs how many.
 */
export const MAX_DATABASE_BROADCASTS_PER_STATEMENT = 1000;
/**
 * Row changes of one statement on one table the change capture hands to postgres_changes (for
 * example `insert into game_blocks select ... from generate_series(1, 1000000)`); the rest are
 * not captured, only counted (tessera_realtime_changes_dropped_total) and logged, so one huge
 * statement cannot hold every other change behind it. Hosted never drops them: it streams them
 * all, 100 per poll, behind which every later change waits.
 */
export const MAX_CHANGES_PER_STATEMENT = 10_000;
/**
 * Row changes another node drained that one node holds while it checks them for its own
 * subscribers (server/realtime/dispatch.ts); past it they are dropped for its subscribers and logged.
 */
export const MAX_RELAYED_CHANGES_PENDING = 40_000;
/** Database messages one drain delivers per topic; the rest of that drain's messages of the topic are dropped and logged. */
export const MAX_DATABASE_BROADCASTS_PER_TOPIC_PER_DRAIN = 100;
/** Database messages delivered per second over all topics (hosted: the project's events per second); past it they are dropped and logged. */
export const MAX_DATABASE_BROADCASTS_PER_SECOND = 1000;
/** Most stored messages a join replays (hosted's hard limit, also its default). */
export const MAX_REPLAY_MESSAGES = 25;
/** How long realtime.messages rows are kept for replay (hosted: 72 hours, by daily partitions). */
export const MESSAGE_RETENTION_HOURS = 72;
/** Rows that cannot be replayed (public, presence, other extensions) are removed once this old. */
export const UNREPLAYABLE_RETENTION_SECONDS = 60;
/** Most rows realtime.messages keeps; the oldest beyond it are removed. */
export const MAX_STORED_MESSAGES = 100_000;
/** How often old realtime.messages rows are removed. */
export const MESSAGE_PRUNE_MS = 60_000;
/** Broadcasts stored for replay (`persist`) per second over the whole server; past it they are delivered but not stored. */
export const MAX_PERSISTS_PER_SECOND = 200;

/**
 * Longest topic (with `realtime:`), broadcast event name, join_ref and ref, in UTF-8 bytes: the
 * binary broadcast frames carry each length in one byte (realtime-js refuses longer ones too), so
 * within these any message can always be encoded.
 */
export const MAX_NAME_BYTES = MAX_FIELD_BYTES;
/** Longest presence key a join may ask for (`config.presence.key`), in UTF-8 bytes. */
export const MAX_PRESENCE_KEY_BYTES = 255;
/**
 * postgres_changes bindings one join may carry. Hosted sets no number; a game channel uses a
 * handful, and planning and matching cost grows with the bindings a socket holds.
 */
export const MAX_BINDINGS_PER_JOIN = 100;
/** postgres_changes bindings (one per table a binding names) one socket may hold over all its channels. */
export const MAX_BINDINGS_PER_SOCKET = 500;

/** Hosted's reply when a socket has joined {@link MAX_CHANNELS_PER_SOCKET} channels. */
export const TOO_MANY_CHANNELS = 'ChannelRateLimitReached: Too many channels';
/**
 * A join that waited this long behind the socket's earlier messages (each join waits for its
 * policy check in the database) is answered with {@link JOIN_WAITED_TOO_LONG} unchecked: the
 * client has timed it out (realtime-js after 10 s) and will join again, so checking it would
 * only spend the database's time on an answer nobody reads. Under a burst of joins (a thousand
 * players entering at once, or coming back after a restart) this keeps the server on joins that
 * are still wanted instead of falling further behind with every retry.
 */
export const JOIN_WAIT_MS = 10_000;
/** The reply to a join that waited longer than JOIN_WAIT_MS. */
export const JOIN_WAITED_TOO_LONG = 'JoinTimedOut: the join waited too long; join again';
/** Hosted's reply to a join past the joins-per-second quota. */
export const TOO_MANY_JOINS = 'ClientJoinRateLimitReached: Too many joins per second';
/** Hosted's system message when a channel is shut down for sending too much. */
export const TOO_MANY_MESSAGES = 'Too many messages per second';
/** Hosted's error for a broadcast larger than the payload quota. */
export const PAYLOAD_TOO_LARGE = 'Payload size exceeds tenant limit';
/** Hosted's reply to a public join where only private channels are allowed. */
export const PRIVATE_ONLY = 'PrivateOnly: This project only allows private channels';
/** Hosted's system message when a channel's presence events pass {@link MAX_PRESENCE_EVENTS_PER_WINDOW}. */
export const PRESENCE_RATE_LIMITED = 'Client presence rate limit exceeded';
/** Hosted's system message when a tracked presence is larger than {@link MAX_PRESENCE_BYTES}. */
export const TRACK_TOO_LARGE = 'Track message size exceeded';
/** Hosted's reply to a track whose payload is not a JSON object. */
export const PRESENCE_NOT_A_MAP = 'Presence track payload must be a map';
/** The reply to a track under a new key on a topic holding {@link MAX_PRESENCE_KEYS_PER_TOPIC} keys. */
export const TOO_MANY_PRESENCE_KEYS = 'Too many presence keys on this channel topic';
/** The reply to a track under a key holding {@link MAX_PRESENCE_METAS_PER_KEY} presences. */
export const TOO_MANY_PRESENCE_METAS = 'Too many presences under this key on this channel topic';
/** Hosted's REST reply when the sender's message budget is spent. */
export const API_RATE_LIMITED = 'You have exceeded your rate limit';
/** Hosted's REST reply to a batch larger than the budget allows; here past {@link MAX_API_MESSAGES_PER_REQUEST}. */
export const API_BATCH_TOO_LARGE = 'Too many messages to broadcast, please reduce the batch size';
/** Hosted's changeset error for `persist` on a public REST broadcast. */
export const PERSIST_PRIVATE_ONLY = 'can only be used on private channels';
/** Hosted's join reply to `config.broadcast.replay` on a public channel. */
export const REPLAY_PUBLIC = 'UnableToReplayMessages: Replay is not allowed for public channels';
/** Hosted's join reply to replay parameters it cannot read (`since` not an integer of milliseconds, `limit` not an integer). */
export const REPLAY_INVALID = 'UnableToReplayMessages: Replay params are not valid';
/** Hosted's join reply when the stored messages could not be read. */
export const REPLAY_FAILED = 'UnableToReplayMessages: Realtime was unable to replay messages';

/** The reply to a join whose topic is longer than {@link MAX_NAME_BYTES}. */
export const TOPIC_TOO_LONG = `TopicTooLong: a topic has at most ${MAX_NAME_BYTES} bytes`;
/** The reply to a broadcast whose event name is longer than {@link MAX_NAME_BYTES}. */
export const EVENT_TOO_LONG = `EventTooLong: an event name has at most ${MAX_NAME_BYTES} bytes`;
/** The reply to a join whose `config.presence.key` is longer than {@link MAX_PRESENCE_KEY_BYTES}. */
export const PRESENCE_KEY_TOO_LONG = `PresenceKeyTooLong: a presence key has at most ${MAX_PRESENCE_KEY_BYTES} bytes`;
/** The reply to a join carrying more than {@link MAX_BINDINGS_PER_JOIN} postgres_changes bindings. */
export const TOO_MANY_BINDINGS_PER_JOIN = `TooManyBindings: a join carries at most ${MAX_BINDINGS_PER_JOIN} postgres_changes bindings`;
/** The reply to a join that would take its socket past {@link MAX_BINDINGS_PER_SOCKET} bindings. */
export const TOO_MANY_BINDINGS_PER_SOCKET = `TooManyBindings: a socket holds at most ${MAX_BINDINGS_PER_SOCKET} postgres_changes bindings`;

/** Close reason for a socket whose unread replies and changes passed {@link MAX_QUEUED_DURABLE_BYTES}. */
export const UNREAD_OVERFLOW = 'Too many unread messages';

/** Hosted's reply to a private join the read policies refuse. */
export function readRefused(topic: string): string {
  return `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`;
}

/** Hosted's system message when a token update takes read permission away. */
export function readRevoked(topic: string): string {
  return `You no longer have permission to read from this Channel topic: ${topic}`;
}

/**
 * A token bucket: holds up to `perSecond` tokens and refills `perSecond` per second, so a
 * steady rate up to `perSecond` always passes and a burst may spend one second's worth at once.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;
  /** Tokens taken since {@link drainSpent} last read them. */
  private spent = 0;

  constructor(private readonly perSecond: number, now = performance.now()) {
    this.tokens = perSecond;
    this.at = now;
  }

  /** Takes `count` tokens (one unless given); false, taking none, when fewer are left. */
  take(count = 1, now = performance.now()): boolean {
    this.refill(now);
    if (this.tokens < count) return false;
    this.tokens -= count;
    this.spent += count;
    return true;
  }

  /** Takes `count` tokens whatever the bucket holds (spent elsewhere), down to one second's worth of debt. */
  debit(count: number, now = performance.now()): void {
    this.refill(now);
    this.tokens = Math.max(-this.perSecond, this.tokens - count);
  }

  /** The tokens taken since the last call. */
  drainSpent(): number {
    const spent = this.spent;
    this.spent = 0;
    return spent;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
  }

  /** True when the bucket is full again (nothing spent for a second), so it can be forgotten. */
  full(now = performance.now()): boolean {
    return this.tokens + ((now - this.at) * this.perSecond) / 1000 >= this.perSecond;
  }
}

/**
 * One {@link TokenBucket} per key (a named sender, a network address), made on first use. Buckets
 * that are full again say nothing a new one would not, so {@link forgetFull} drops them: the map
 * holds only keys that spent something in the last second (or owe what other nodes spent).
 */
export class KeyedBuckets {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(private readonly perSecond: number) {}

  /** Takes `count` tokens (one unless given) from `key`'s bucket; false, taking none, when fewer are left. */
  take(key: string, count = 1): boolean {
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new TokenBucket(this.perSecond)));
    return bucket.take(count);
  }

  /** Every key with a bucket and the tokens it took since the last call (see server/cluster/shared-rates.ts). */
  drainSpent(): Map<string, number> {
    const spent = new Map<string, number>();
    for (const [key, bucket] of this.buckets) spent.set(key, bucket.drainSpent());
    return spent;
  }

  /** Takes `count` tokens from `key`'s bucket whatever it holds (spent on other nodes); nothing when `key` has no bucket. */
  debit(key: string, count: number): void {
    this.buckets.get(key)?.debit(count);
  }

  /** Forgets the buckets that are full again. */
  forgetFull(): void {
    for (const [key, bucket] of this.buckets) if (bucket.full()) this.buckets.delete(key);
  }
}
