import type { Claims } from '../db/index.js';
import type { ReadVerdict } from './authorization.js';
import type { Access, TableInfo } from './catalog.js';
import type { Channel, Conn } from './channel.js';
import type { Dispatcher } from './dispatch.js';
import { JoinError, readBindings } from './bindings.js';
import type { TableLookup } from './bindings.js';
import {
  MAX_BROADCAST_BYTES,
  MAX_CHANNELS_PER_SOCKET,
  PAYLOAD_TOO_LARGE,
  PRIVATE_ONLY,
  REGION_PAYLOAD,
  TOO_MANY_CHANNELS,
  TOO_MANY_JOINS,
  TOO_MANY_MESSAGES,
  WRITE_CHECK_MS,
  readRefused,
  readRevoked,
} from './limits.js';
import { MalformedFrame, decodeBinary, decodeText, encodeBinaryBroadcast, encodeText } from './protocol.js';
import type { Broadcast, Message } from './protocol.js';

/** What every connection shares: token checks, tables, access rules, the dispatcher and topic members. */
export interface Hub {
  verifyToken(token: string): Promise<Claims>;
  lookup: TableLookup;
  /**
   * Asks for the publication to be re-read (and new tables captured) after a join named a table
   * the catalogue lacks; at most once per CATALOGUE_REFRESH_MS, in the background.
   */
  refreshTablesSoon(): void;
  /** Resolves once a catalogue refresh under way (after a schema change) is done; at once when none is. */
  catalogueSettled(): Promise<void>;
  access(role: string, table: TableInfo): Promise<Access>;
  /** Read policies of realtime.messages for `topic` (without `realtime:`). */
  authorizeRead(claims: Claims, topic: string): Promise<ReadVerdict>;
  /** Write policies of realtime.messages for a broadcast on `topic`. */
  authorizeWrite(claims: Claims, topic: string): Promise<boolean>;
  /** Takes one message from the wallet's budget across its sockets; false when it is spent. */
  takeWalletMessage(wallet: string): boolean;
  dispatcher: Dispatcher;
  topics: Map<string, Set<Channel>>;
  /** One function per open connection that closes its channels joined with a token of the ended session. */
  sessionEnders: Set<(sessionId: string) => void>;
  log(message: string): void;
}

/** setTimeout cannot wait longer than this; later expiries are not scheduled. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Topics whose broadcasts carry player positions: private only, stamped with the sender's wallet. */
const REGION_PREFIX = 'region:';

function send(conn: Conn, message: Message): void {
  conn.outbound.durable(Buffer.from(encodeText(conn.vsn, message)), false);
}

function reply(conn: Conn, to: Message, status: 'ok' | 'error', response: Record<string, unknown>): void {
  send(conn, { joinRef: to.joinRef, ref: to.ref, topic: to.topic, event: 'phx_reply', payload: { status, response } });
}

/** The channel name a client chose: the topic without `realtime:`. */
function subTopic(topic: string): string {
  return topic.replace(/^realtime:/, '');
}

function system(channel: Channel, extension: string, status: 'ok' | 'error', message: string): void {
  const payload = { extension, status, message, channel: subTopic(channel.topic) };
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
  /** Set once the socket spent its message budget; cleared when the budget refills. */
  let shedding = false;

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
    if (!conn.joins.take()) {
      reply(conn, msg, 'error', { reason: TOO_MANY_JOINS });
      return;
    }
    const previous = conn.channels.get(msg.topic);
    if (previous) leave(previous);
    if (conn.channels.size >= MAX_CHANNELS_PER_SOCKET) {
      reply(conn, msg, 'error', { reason: TOO_MANY_CHANNELS });
      return;
    }
    const payload = asRecord(msg.payload);
    const token = typeof payload.access_token === 'string' ? payload.access_token : conn.apikey;
    let claims: Claims;
    try {
      claims = await hub.verifyToken(token);
    } catch (error) {
      reply(conn, msg, 'error', { reason: tokenReason(error) });
      return;
    }
    const config = asRecord(payload.config);
    const isPrivate = config.private === true;
    const name = subTopic(msg.topic);
    if (name.startsWith(REGION_PREFIX) && !isPrivate) {
      reply(conn, msg, 'error', { reason: PRIVATE_ONLY });
      return;
    }
    let wallet: string | null = null;
    if (isPrivate) {
      const verdict = await readVerdict(claims, name);
      if (!verdict.allowed) {
        reply(conn, msg, 'error', { reason: readRefused(name) });
        return;
      }
      wallet = verdict.wallet;
    }
    await hub.catalogueSettled();
    const { bindings, problems } = readBindings(msg.payload, hub.lookup);
    if (problems.length > 0) hub.refreshTablesSoon();
    const broadcast = asRecord(config.broadcast);
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
      private: isPrivate,
      wallet,
      write: null,
    };
    for (const requested of bindings) {
      for (const table of requested.tables) {
        channel.bindings.push({ channel, id: requested.echo.id, event: requested.event, table, filter: requested.filter, select: requested.select });
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

  async function readVerdict(claims: Claims, name: string): Promise<ReadVerdict> {
    try {
      return await hub.authorizeRead(claims, name);
    } catch (error) {
      hub.log(`realtime: read policies of ${name} failed: ${(error as Error).message}`);
      return { allowed: false, wallet: null };
    }
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
    let wallet = channel.wallet;
    if (channel.private) {
      const verdict = await readVerdict(claims, subTopic(channel.topic));
      if (!verdict.allowed) {
        close(channel, readRevoked(subTopic(channel.topic)));
        return;
      }
      wallet = verdict.wallet;
    }
    Object.assign(channel, { token, claims, claimsJson: next.claimsJson, access, wallet, write: null });
    armExpiry(channel);
  }

  /** The channel's write verdict, asked of the policies at most once per WRITE_CHECK_MS. */
  async function mayWrite(channel: Channel): Promise<boolean> {
    const now = performance.now();
    if (channel.write && channel.write.until > now) return channel.write.allowed;
    let allowed = false;
    try {
      allowed = await hub.authorizeWrite(channel.claims, subTopic(channel.topic));
    } catch (error) {
      hub.log(`realtime: write policies of ${channel.topic} failed: ${(error as Error).message}`);
    }
    channel.write = { allowed, until: now + WRITE_CHECK_MS };
    return allowed;
  }

  /** The region broadcast as the server sends it on: a JSON object whose `id` is the sender's wallet. */
  function stamped(channel: Channel, item: Broadcast): Broadcast | null {
    const payload = item.payload;
    if (item.binary || channel.wallet === null || typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
    return { ...item, payload: { ...(payload as Record<string, unknown>), id: channel.wallet } };
  }

  async function broadcast(channel: Channel, msg: Message, received: Broadcast, size: number): Promise<void> {
    if (channel.wallet !== null && !hub.takeWalletMessage(channel.wallet)) {
      close(channel, TOO_MANY_MESSAGES);
      return;
    }
    if (size > MAX_BROADCAST_BYTES) {
      reply(conn, msg, 'error', { reason: PAYLOAD_TOO_LARGE });
      return;
    }
    // As on hosted, a send the write policies refuse is dropped without a reply.
    if (channel.private && !(await mayWrite(channel))) return;
    if (conn.channels.get(channel.topic) !== channel) return;
    let item = received;
    if (subTopic(channel.topic).startsWith(REGION_PREFIX)) {
      const verified = stamped(channel, received);
      if (!verified) {
        reply(conn, msg, 'error', { reason: REGION_PAYLOAD });
        return;
      }
      item = verified;
    }
    const key = `${channel.topic}\0${channel.wallet ?? `#${conn.id}`}\0${item.event}`;
    let binary: Buffer | null = null;
    let text: Buffer | null = null;
    for (const member of hub.topics.get(channel.topic) ?? []) {
      if (member === channel && !channel.broadcastSelf) continue;
      const target = member.conn;
      if (target.vsn === '2.0.0') {
        binary ??= encodeBinaryBroadcast(channel.topic, item);
        target.outbound.ephemeral(key, binary, true);
      } else if (!item.binary) {
        const payload = { type: 'broadcast', event: item.event, payload: item.payload };
        text ??= Buffer.from(encodeText('1.0.0', { joinRef: null, ref: null, topic: channel.topic, event: 'broadcast', payload }));
        target.outbound.ephemeral(key, text, false);
      }
    }
    if (channel.broadcastAck) reply(conn, msg, 'ok', {});
  }

  function textBroadcast(msg: Message): Broadcast {
    const payload = asRecord(msg.payload);
    if (typeof payload.event !== 'string') throw new MalformedFrame('broadcast needs a string event');
    return { event: payload.event, payload: payload.payload ?? {}, binary: false };
  }

  async function handle(msg: Message, fromBinary: Broadcast | null, size: number, paid: boolean): Promise<void> {
    if (msg.topic === 'phoenix') {
      if (msg.event === 'heartbeat') reply(conn, msg, 'ok', {});
      else reply(conn, msg, 'error', { reason: `unknown event ${msg.event} on topic phoenix` });
      return;
    }
    if (msg.event === 'phx_join') return join(msg);
    const channel = conn.channels.get(msg.topic);
    if (!paid && !conn.messages.take()) {
      shedding = true;
      if (channel) close(channel, TOO_MANY_MESSAGES);
      return;
    }
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
        return broadcast(channel, msg, fromBinary ?? textBroadcast(msg), size);
      default:
        reply(conn, msg, 'error', { reason: `unsupported event ${msg.event}` });
    }
  }

  async function receive(data: Buffer, isBinary: boolean): Promise<void> {
    // Past its budget a socket's frames are dropped unread until the budget refills, so a flood
    // costs no decoding.
    let paid = false;
    if (shedding) {
      if (!conn.messages.take()) return;
      shedding = false;
      paid = true;
    }
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
      await handle(msg, fromBinary, data.length, paid);
    } catch (error) {
      const reason = error instanceof JoinError || error instanceof MalformedFrame ? error.message : 'internal error';
      if (reason === 'internal error') hub.log(`realtime: ${msg.event} on ${msg.topic} failed: ${(error as Error).message}`);
      reply(conn, msg, 'error', { reason });
    }
  }

  // Queued behind frames being handled, so a join that verified its token just before the
  // session ended is closed too.
  const endSession = (sessionId: string) => {
    chain = chain.then(() => {
      for (const channel of [...conn.channels.values()]) {
        if (channel.claims.session_id === sessionId) close(channel, 'Token has been revoked');
      }
    });
  };
  hub.sessionEnders.add(endSession);

  conn.ws.on('message', (data: Buffer, isBinary: boolean) => {
    chain = chain.then(() => receive(data, isBinary)).catch((error: unknown) => hub.log(`realtime: ${(error as Error).message}`));
  });
  conn.ws.on('close', () => {
    hub.sessionEnders.delete(endSession);
    chain = chain.then(() => {
      for (const channel of [...conn.channels.values()]) leave(channel);
    });
  });
  conn.ws.on('error', (error) => hub.log(`realtime: socket error ${error.message}`));
}
