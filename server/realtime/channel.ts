import type { WebSocket } from 'ws';
import type { Claims } from '../db/index.js';
import type { Extension, WriteExtension } from './authorization.js';
import type { Selection } from './bindings.js';
import type { Access, TableInfo } from './catalog.js';
import type { Filter } from './filter.js';
import type { TokenBucket } from './limits.js';
import type { Vsn } from './protocol.js';
import type { Outbound } from './wire.js';

/** One WebSocket client. `out` collects encoded change messages until the dispatcher flushes them into `outbound`. */
export interface Conn {
  /** Distinguishes the connection's broadcasts when its sender is not named (see ChannelPolicy.senderSql). */
  id: number;
  /** The network address the socket came from: its authorisation checks share this address's places (KeyedSlots). */
  address: string;
  vsn: Vsn;
  ws: WebSocket;
  apikey: string;
  channels: Map<string, Channel>;
  out: Buffer[];
  outbound: Outbound;
  joins: TokenBucket;
  messages: TokenBucket;
}

/** One postgres_changes binding of a channel, on one table. */
export interface Binding {
  channel: Channel;
  id: number;
  event: 'INSERT' | 'UPDATE' | 'DELETE' | '*';
  table: TableInfo;
  filter: Filter | null;
  /** Columns asked for with `select` (the primary key always comes too), or null for all. */
  select: Selection | null;
}

/** A joined topic on a connection. */
export interface Channel {
  conn: Conn;
  topic: string;
  joinRef: string | null;
  token: string;
  claims: Claims;
  claimsJson: string;
  /** What the current role may read, per table oid of the bindings. */
  access: Map<number, Access>;
  bindings: Binding[];
  broadcastSelf: boolean;
  broadcastAck: boolean;
  /** Joined with `config.broadcast.batch`: broadcasts arrive gathered in batches (server/realtime/batches.ts). */
  broadcastBatch: boolean;
  expiry: NodeJS.Timeout | null;
  /** Joined with `config.private`: authorised by the policies on realtime.messages. */
  private: boolean;
  /** What the channel may receive: everything on a public channel, what the read policies grant on a private one. */
  reads: Record<Extension, boolean>;
  /** The sender the read check named for the channel's claims (private channels only; see ChannelPolicy.senderSql). */
  sender: string | null;
  /** The last write verdict per extension; see {@link WriteVerdict}. */
  writes: Partial<Record<WriteExtension, WriteVerdict>>;
  presence: PresenceSlot;
  /**
   * Ids of the stored messages replayed to the channel on join (at most MAX_REPLAY_MESSAGES):
   * the same message delivered live afterwards is not sent twice.
   */
  replayed: ReadonlySet<string>;
}

/**
 * A write verdict of a channel: pending while the policies are asked (sends that arrive meanwhile
 * wait for the same answer), until when (performance.now()) it is reused, and once answered,
 * whether writing was allowed.
 */
export interface WriteVerdict {
  allowed: Promise<boolean>;
  until: number;
  granted: boolean | null;
}

/** Whether a topic's message of one privacy reaches `member`: public and private channels of a topic are apart, as on hosted. */
export function reaches(member: Channel, isPrivate: boolean, extension: Extension): boolean {
  return member.private === isPrivate && member.reads[extension];
}

/** The members a topic's message of one privacy reaches (see {@link reaches}). */
export function audience(members: Iterable<Channel> | undefined, isPrivate: boolean, extension: Extension): Channel[] {
  const reached: Channel[] = [];
  for (const member of members ?? []) if (reaches(member, isPrivate, extension)) reached.push(member);
  return reached;
}

/** A channel's presence: its key, whether it asked for presence state, its tracked meta and its event window. */
export interface PresenceSlot {
  /** `config.presence.key` of the join, or a UUID the server chose when it was empty. */
  key: string;
  /** The join asked for presence (`config.presence.enabled`): it is sent the state after joining. */
  enabled: boolean;
  /** What the channel tracks now, or null. */
  meta: PresenceMeta | null;
  /** Presence events in the current window and when (performance.now()) the window ends. */
  events: number;
  windowEnds: number;
}

/** One tracked presence: the payload the client sent, its JSON, and Phoenix's refs. */
export interface PresenceMeta {
  ref: string;
  /** The ref of the meta this one replaced (a re-track), as Phoenix's `phx_ref_prev`. */
  prev: string | null;
  payload: Record<string, unknown>;
  json: string;
}
