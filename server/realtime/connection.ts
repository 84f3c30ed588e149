import type { Claims } from '../db/index.js';
import type { Access, TableInfo } from './catalog.js';
import type { Channel, Conn } from './channel.js';
import type { Dispatcher } from './dispatch.js';
import { JoinError, readBindings } from './bindings.js';
import type { TableLookup } from './bindings.js';
import { MalformedFrame, decodeBinary, decodeText, encodeBinaryBroadcast, encodeText } from './protocol.js';
import type { Broadcast, Message } from './protocol.js';

/** What every connection shares: token checks, tables, access rules, the dispatcher and topic members. */
export interface Hub {
  verifyToken(token: string): Promise<Claims>;
  lookup: TableLookup;
  /** Re-reads the publication (and captures new tables) after a join named an unknown table. */
  refreshTables(): Promise<void>;
  access(role: string, table: TableInfo): Promise<Access>;
  dispatcher: Dispatcher;
  topics: Map<string, Set<Channel>>;
  log(message: string): void;
}

/** setTimeout cannot wait longer than this; later expiries are not scheduled. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function send(conn: Conn, message: Message): void {
  if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(encodeText(conn.vsn, message));
}

function reply(conn: Conn, to: Message, status: 'ok' | 'error', response: Record<string, unknown>): void {
  send(conn, { joinRef: to.joinRef, ref: to.ref, topic: to.topic, event: 'phx_reply', payload: { status, response } });
}

function system(channel: Channel, extension: string, status: 'ok' | 'error', message: string): void {
  const payload = { extension, status, message, channel: channel.topic.replace(/^realtime:/, '') };
  send(channel.conn, { joinRef: channel.joinRef, ref: null, topic: channel.topic, event: 'system', payload });
}

function tokenReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /expired/i.test(message) ? 'Token has expired' : `Invalid JWT: ${message}`;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Serves one WebSocket: decodes frames in order and runs the Phoenix channel protocol over them. */
export function serveConnection(conn: Conn, hub: Hub): void {
  let chain = Promise.resolve();

  function leave(channel: Channel): void {
    if (conn.channels.get(channel.topic) === channel) conn.channels.delete(channel.topic);
    hub.topics.get(channel.topic)?.delete(channel);
    if (hub.topics.get(channel.topic)?.size === 0) hub.topics.delete(channel.topic);
    hub.dispatcher.remove(channel);
    if (channel.expiry) clearTimeout(channel.expiry);
  }

  function close(channel: Channel, reason: string): void {
    system(channel, 'system', 'error', reason);
    send(conn, { joinRef: channel.joinRef, ref: channel.joinRef, topic: channel.topic, event: 'phx_close', payload: {} });
    leave(channel);
  }

  function armExpiry(channel: Channel): void {
    if (channel.expiry) clearTimeout(channel.expiry);
    const ms = channel.claims.exp * 1000 - Date.now();
    channel.expiry = ms < MAX_TIMER_MS ? setTimeout(() => close(channel, 'Token has expired'), Math.max(ms, 0)) : null;
  }

  async function accessFor(channel: Channel): Promise<Map<number, Access>> {
    const access = new Map<number, Access>();
    for (const binding of channel.bindings) {
      if (!access.has(binding.table.oid)) access.set(binding.table.oid, await hub.access(channel.claims.role, binding.table));
    }
    return access;
  }

  async function join(msg: Message): Promise<void> {
    const previous = conn.channels.get(msg.topic);
    if (previous) leave(previous);
    const payload = asRecord(msg.payload);
    const token = typeof payload.access_token === 'string' ? payload.access_token : conn.apikey;
    let claims: Claims;
    try {
      claims = await hub.verifyToken(token);
    } catch (error) {
      reply(conn, msg, 'error', { reason: tokenReason(error) });
      return;
    }
    let { bindings, problems } = readBindings(msg.payload, hub.lookup);
    if (problems.length > 0) {
      await hub.refreshTables();
      ({ bindings, problems } = readBindings(msg.payload, hub.lookup));
    }
    const broadcast = asRecord(asRecord(payload.config).broadcast);
    const channel: Channel = {
      conn,
      topic: msg.topic,
      joinRef: msg.joinRef ?? msg.ref,
      token,
      claims,
      claimsJson: JSON.stringify(claims),
      access: new Map(),
      bindings: [],
      broadcastSelf: broadcast.self === true,
      broadcastAck: broadcast.ack === true,
      expiry: null,
    };
    for (const requested of bindings) {
      for (const table of requested.tables) {
        channel.bindings.push({ channel, id: requested.echo.id, event: requested.event, table, filter: requested.filter });
      }
    }
    channel.access = await accessFor(channel);
    conn.channels.set(channel.topic, channel);
    let members = hub.topics.get(channel.topic);
    if (!members) hub.topics.set(channel.topic, (members = new Set()));
    members.add(channel);
    hub.dispatcher.add(channel);
    armExpiry(channel);
    reply(conn, msg, 'ok', { postgres_changes: bindings.map((binding) => binding.echo) });
    if (bindings.length === 0) return;
    if (problems.length > 0) system(channel, 'postgres_changes', 'error', problems.join('; '));
    else system(channel, 'postgres_changes', 'ok', 'Subscribed to PostgreSQL');
  }

  async function updateToken(channel: Channel, msg: Message): Promise<void> {
    const token = asRecord(msg.payload).access_token;
    if (typeof token !== 'string' || token.startsWith('sb_') || token === channel.token) return;
    let claims: Claims;
    try {
      claims = await hub.verifyToken(token);
    } catch (error) {
      close(channel, tokenReason(error));
      return;
    }
    const next = { ...channel, token, claims, claimsJson: JSON.stringify(claims) };
    const access = await accessFor(next);
    Object.assign(channel, { token, claims, claimsJson: next.claimsJson, access });
    armExpiry(channel);
  }

  function broadcast(channel: Channel, msg: Message, item: Broadcast): void {
    let binary: Buffer | null = null;
    for (const member of hub.topics.get(channel.topic) ?? []) {
      if (member === channel && !channel.broadcastSelf) continue;
      const target = member.conn;
      if (target.ws.readyState !== target.ws.OPEN) continue;
      if (target.vsn === '2.0.0') {
        binary ??= encodeBinaryBroadcast(channel.topic, item);
        target.ws.send(binary, { binary: true });
      } else if (!item.binary) {
        const payload = { type: 'broadcast', event: item.event, payload: item.payload };
        send(target, { joinRef: null, ref: null, topic: channel.topic, event: 'broadcast', payload });
      }
    }
    if (channel.broadcastAck) reply(conn, msg, 'ok', {});
  }

  function textBroadcast(msg: Message): Broadcast {
    const payload = asRecord(msg.payload);
    if (typeof payload.event !== 'string') throw new MalformedFrame('broadcast needs a string event');
    return { event: payload.event, payload: payload.payload ?? {}, binary: false };
  }

  async function handle(msg: Message, fromBinary: Broadcast | null): Promise<void> {
    if (msg.topic === 'phoenix') {
      if (msg.event === 'heartbeat') reply(conn, msg, 'ok', {});
      else reply(conn, msg, 'error', { reason: `unknown event ${msg.event} on topic phoenix` });
      return;
    }
    if (msg.event === 'phx_join') return join(msg);
    const channel = conn.channels.get(msg.topic);
    if (!channel) {
      reply(conn, msg, 'error', { reason: 'unmatched topic' });
      return;
    }
    switch (msg.event) {
      case 'phx_leave':
        leave(channel);
        reply(conn, msg, 'ok', {});
        return;
      case 'access_token':
        return updateToken(channel, msg);
      case 'broadcast':
        broadcast(channel, msg, fromBinary ?? textBroadcast(msg));
        return;
      default:
        reply(conn, msg, 'error', { reason: `unsupported event ${msg.event}` });
    }
  }

  async function receive(data: Buffer, isBinary: boolean): Promise<void> {
    let msg: Message;
    let fromBinary: Broadcast | null = null;
    try {
      if (isBinary) {
        if (conn.vsn !== '2.0.0') throw new MalformedFrame('binary frames need vsn 2.0.0');
        const decoded = decodeBinary(data);
        msg = decoded;
        fromBinary = decoded.payload;
      } else {
        msg = decodeText(data.toString('utf8'), conn.vsn);
      }
    } catch (error) {
      if (!(error instanceof MalformedFrame)) throw error;
      send(conn, { joinRef: null, ref: null, topic: 'phoenix', event: 'phx_error', payload: { reason: error.message } });
      return;
    }
    try {
      await handle(msg, fromBinary);
    } catch (error) {
      const reason = error instanceof JoinError || error instanceof MalformedFrame ? error.message : 'internal error';
      if (reason === 'internal error') hub.log(`realtime: ${msg.event} on ${msg.topic} failed: ${(error as Error).message}`);
      reply(conn, msg, 'error', { reason });
    }
  }

  conn.ws.on('message', (data: Buffer, isBinary: boolean) => {
    chain = chain.then(() => receive(data, isBinary)).catch((error: unknown) => hub.log(`realtime: ${(error as Error).message}`));
  });
  conn.ws.on('close', () => {
    chain = chain.then(() => {
      for (const channel of [...conn.channels.values()]) leave(channel);
    });
  });
  conn.ws.on('error', (error) => hub.log(`realtime: socket error ${error.message}`));
}
