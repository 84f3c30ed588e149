import type { WebSocket } from 'ws';
import type { Claims } from '../db/index.js';
import type { Access, TableInfo } from './catalog.js';
import type { Filter } from './filter.js';
import type { TokenBucket } from './limits.js';
import type { Vsn } from './protocol.js';
import type { Outbound } from './wire.js';

/** One WebSocket client. `out` collects encoded change messages until the dispatcher flushes them into `outbound`. */
export interface Conn {
  /** Distinguishes the connection's broadcasts when its sender has no wallet. */
  id: number;
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
  select: ReadonlySet<string> | null;
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
  expiry: NodeJS.Timeout | null;
  /** Joined with `config.private`: authorised by the policies on realtime.messages. */
  private: boolean;
  /** The wallet the read check found for the channel's claims (private channels only). */
  wallet: string | null;
  /** The last write verdict and until when (performance.now()) it is reused. */
  write: { allowed: boolean; until: number } | null;
}
