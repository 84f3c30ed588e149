import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Claims } from '../db/index.js';
import type { Access, TableInfo } from './catalog.js';
import type { Filter } from './filter.js';
import type { Vsn } from './protocol.js';

/** One WebSocket client. `out` collects pre-framed change frames until the dispatcher flushes. */
export interface Conn {
  vsn: Vsn;
  ws: WebSocket;
  socket: Duplex;
  apikey: string;
  channels: Map<string, Channel>;
  out: Buffer[];
}

/** One postgres_changes binding of a channel, on one table. */
export interface Binding {
  channel: Channel;
  id: number;
  event: 'INSERT' | 'UPDATE' | 'DELETE' | '*';
  table: TableInfo;
  filter: Filter | null;
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
}
