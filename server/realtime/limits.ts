/**
 * Every bound of the live layer, modelled on hosted Supabase Realtime's quotas (docs/protocols.md
 * §3 lists them with the replies a client gets). Hosted counts most of them per project; here
 * they hold per socket (and per wallet), so one client cannot spend the whole server.
 */

/** Channels one socket may have joined at once (hosted: 100 per connection). */
export const MAX_CHANNELS_PER_SOCKET = 100;
/** Joins one socket may ask for per second (hosted: 100 per second for a whole Free project). */
export const MAX_JOINS_PER_SECOND = 20;
/** Messages (broadcasts and other channel events) one socket may send per second (hosted: 100 per project). */
export const MAX_MESSAGES_PER_SECOND = 100;
/** Broadcasts one wallet may send per second across all its sockets. */
export const MAX_WALLET_MESSAGES_PER_SECOND = 100;
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
/** How long a private channel's write verdict is reused before the policies are asked again. */
export const WRITE_CHECK_MS = 5000;
/** The published-table catalogue is re-read at most this often, and only when a join names a table it lacks. */
export const CATALOGUE_REFRESH_MS = 5000;

/** Hosted's reply when a socket has joined {@link MAX_CHANNELS_PER_SOCKET} channels. */
export const TOO_MANY_CHANNELS = 'ChannelRateLimitReached: Too many channels';
/** Hosted's reply to a join past the joins-per-second quota. */
export const TOO_MANY_JOINS = 'ClientJoinRateLimitReached: Too many joins per second';
/** Hosted's system message when a channel is shut down for sending too much. */
export const TOO_MANY_MESSAGES = 'Too many messages per second';
/** Hosted's error for a broadcast larger than the payload quota. */
export const PAYLOAD_TOO_LARGE = 'Payload size exceeds tenant limit';
/** Hosted's reply to a public join where only private channels are allowed. */
export const PRIVATE_ONLY = 'PrivateOnly: This project only allows private channels';
/** The reply to a region broadcast that is not a JSON object (binary, or another JSON value). */
export const REGION_PAYLOAD = 'Region broadcasts must carry a JSON object payload';
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

  constructor(private readonly perSecond: number, now = performance.now()) {
    this.tokens = perSecond;
    this.at = now;
  }

  /** Takes one token; false when none is left. */
  take(now = performance.now()): boolean {
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** True when the bucket is full again (nothing spent for a second), so it can be forgotten. */
  full(now = performance.now()): boolean {
    return this.tokens + ((now - this.at) * this.perSecond) / 1000 >= this.perSecond;
  }
}
