import { randomUUID } from 'node:crypto';
import type { Claims } from '../db/index.js';
import { isJsonObject } from '../http/json.js';
import type { ReadVerdict, WriteExtension } from './authorization.js';
import type { Access, TableInfo } from './catalog.js';
import type { Channel, Conn, WriteVerdict } from './channel.js';
import type { BroadcastBatches } from './batches.js';
import { deliverBroadcast, deliverPresenceDiff, deliverReplay } from './delivery.js';
import type { Dispatcher } from './dispatch.js';
import { JoinError, readBindings } from './bindings.js';
import type { TableLookup } from './bindings.js';
import {
  EVENT_TOO_LONG,
  MAX_BINDINGS_PER_JOIN,
  MAX_BINDINGS_PER_SOCKET,
  MAX_BROADCAST_BYTES,
  MAX_CHANNELS_PER_SOCKET,
  MAX_NAME_BYTES,
  MAX_PRESENCE_KEY_BYTES,
  PRESENCE_KEY_TOO_LONG,
  MAX_PRESENCE_BYTES,
  MAX_PRESENCE_EVENTS_PER_WINDOW,
  PAYLOAD_TOO_LARGE,
  PRESENCE_NOT_A_MAP,
  PRESENCE_RATE_LIMITED,
  PRESENCE_WINDOW_MS,
  PRIVATE_ONLY,
  REGION_PAYLOAD,
  REPLAY_FAILED,
  REPLAY_INVALID,
  REPLAY_PUBLIC,
  TRACK_TOO_LARGE,
  TOO_MANY_BINDINGS_PER_JOIN,
  TOO_MANY_BINDINGS_PER_SOCKET,
  TOO_MANY_CHANNELS,
  TOO_MANY_JOINS,
  TOPIC_TOO_LONG,
  JOIN_WAIT_MS,
  JOIN_WAITED_TOO_LONG,
  TOO_MANY_MESSAGES,
  WRITE_CHECK_MS,
  WRITE_CHECK_SPREAD,
  readRefused,
  readRevoked,
} from './limits.js';
import type { PresenceDiff, PresenceRegistry } from './presence.js';
import { errorMessage, guarded } from './guard.js';
import { MalformedFrame, decodeBinary, decodeText, encodeText, fitsBytes } from './protocol.js';
import type { Broadcast, BroadcastPush, Message } from './protocol.js';

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
  /** Write policies of realtime.messages for a message of `extension` on `topic`. */
  authorizeWrite(claims: Claims, topic: string, extension: WriteExtension): Promise<boolean>;
  /** The stored messages of `topic` (without `realtime:`) a join replays: since `since` (ms epoch), at most `limit`, oldest first. */
  replay(topic: string, since: number, limit: number): Promise<Broadcast[]>;
  /**
   * Stores a delivered broadcast on `topic` (without `realtime:`) for replay, once its sender's
   * policies allowed it; resolves to its id, or null when the server's budget of stored messages
   * is spent or the insert failed (logged).
   */
  persist(topic: string, item: Broadcast): Promise<string | null>;
  /**
   * Takes `count` messages (one unless given) from a sender's budget: a wallet's across its
   * sockets and REST requests, or another sender key of the REST API. False, taking none, when
   * fewer are left.
   */
  takeWalletMessage(wallet: string, count?: number): boolean;
  dispatcher: Dispatcher;
  /** Broadcasts gathered for channels that take them in batches. */
  batches: BroadcastBatches;
  /** The joined channels of each topic (with `realtime:`). */
  topics: Map<string, Set<Channel>>;
  /** Who is tracked on which topic. */
  presence: PresenceRegistry;
  /** One function per open connection that closes its channels joined with a token of the ended session. */
  sessionEnders: Set<(sessionId: string) => void>;
  log(message: string): void;
}

/** setTimeout cannot wait longer than this; later expiries are not scheduled. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Topics whose broadcasts carry player positions: private only, stamped with the sender's wallet. */
export const REGION_PREFIX = 'region:';

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
  return isJsonObject(value) ? value : {};
}

/** Valid `since` values of a replay: the milliseconds hosted can read as a date (years 0 to 9999). */
const MIN_REPLAY_SINCE = -62_167_219_200_000;
const MAX_REPLAY_SINCE = 253_402_300_799_999;

/**
 * The replay a join asked for with `config.broadcast.replay`, read as hosted reads it: null for
 * none (no `replay` key, or one that is not an object on a private channel), `{since, limit}`
 * (`limit` 25 when absent), or the join's refusal: a public channel, or `since` / `limit` that
 * are not integers.
 */
function replayRequest(broadcast: Record<string, unknown>, isPrivate: boolean): { since: number; limit: number } | string | null {
  if (!('replay' in broadcast)) return null;
  if (!isPrivate) return REPLAY_PUBLIC;
  if (!isJsonObject(broadcast.replay)) return null;
  const { since } = broadcast.replay;
  const limit = broadcast.replay.limit ?? 25;
  if (typeof since !== 'number' || !Number.isInteger(since) || since < MIN_REPLAY_SINCE || since > MAX_REPLAY_SINCE) return REPLAY_INVALID;
  if (typeof limit !== 'number' || !Number.isInteger(limit)) return REPLAY_INVALID;
  return { since, limit };
}

/**
 * The presence key a join asked for: `config.presence.key` when a non-empty string or a number,
 * else a new UUID (as hosted); null when the key is longer than MAX_PRESENCE_KEY_BYTES.
 */
function presenceKey(config: Record<string, unknown>): string | null {
  const key = asRecord(config.presence).key;
  if (typeof key === 'string' && key !== '') return fitsBytes(key, MAX_PRESENCE_KEY_BYTES) ? key : null;
  if (typeof key === 'number' && Number.isFinite(key)) return String(key);
  return randomUUID();
}

/** How many postgres_changes bindings a join payload asks for (0 when it has no list). */
function requestedBindings(payload: Record<string, unknown>): number {
  const list = asRecord(payload.config).postgres_changes;
  return Array.isArray(list) ? list.length : 0;
}

/** The postgres_changes bindings (one per table) a connection's channels hold. */
function heldBindings(conn: Conn): number {
  let held = 0;
  for (const channel of conn.channels.values()) held += channel.bindings.length;
  return held;
}

/**
 * A payload as the server sends it on, with a region broadcast's `id` set to the sender's
 * wallet; null when a region payload is not a JSON object (or there is no wallet to stamp).
 */
export function stampedPayload(topic: string, wallet: string | null, item: Broadcast): Broadcast | null {
  if (!subTopic(topic).startsWith(REGION_PREFIX)) return item;
  if (item.binary || wallet === null || !isJsonObject(item.payload)) return null;
  return { ...item, payload: { ...item.payload, id: wallet } };
}

/** Serves one WebSocket: decodes frames in order and runs the Phoenix channel protocol over them. */
export function serveConnection(conn: Conn, hub: Hub): void {
  let chain = Promise.resolve();
  /** Set once the socket spent its message budget; cleared when the budget refills. */
  let shedding = false;

  function presenceChanged(channel: Channel, diff: PresenceDiff): void {
    deliverPresenceDiff(hub.topics.get(channel.topic), channel.topic, channel.private, diff);
  }

  function leave(channel: Channel): void {
    if (conn.channels.get(channel.topic) === channel) conn.channels.delete(channel.topic);
    hub.topics.get(channel.topic)?.delete(channel);
    if (hub.topics.get(channel.topic)?.size === 0) hub.topics.delete(channel.topic);
    const left = hub.presence.untrack(channel);
    if (left) presenceChanged(channel, left);
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
    const expire = guarded(`expiry of ${channel.topic}`, () => close(channel, 'Token has expired'), () => leave(channel));
    channel.expiry = ms < MAX_TIMER_MS ? setTimeout(expire, Math.max(ms, 0)) : null;
  }

  async function accessFor(channel: Channel): Promise<Map<number, Access>> {
    const access = new Map<number, Access>();
    for (const binding of channel.bindings) {
      if (!access.has(binding.table.oid)) access.set(binding.table.oid, await hub.access(channel.claims.role, binding.table));
    }
    return access;
  }

  /** Whether a join that arrived at `arrived` (performance.now()) has waited past JOIN_WAIT_MS: then it is answered so and dropped. */
  function waitedTooLong(msg: Message, arrived: number): boolean {
    if (performance.now() - arrived < JOIN_WAIT_MS) return false;
    reply(conn, msg, 'error', { reason: JOIN_WAITED_TOO_LONG });
    return true;
  }

  async function join(msg: Message, arrived: number): Promise<void> {
    if (waitedTooLong(msg, arrived)) return;
    if (!conn.joins.take()) {
      reply(conn, msg, 'error', { reason: TOO_MANY_JOINS });
      return;
    }
    // Within MAX_NAME_BYTES every message of the channel (binary broadcasts and batches) can be encoded.
    if (!fitsBytes(msg.topic, MAX_NAME_BYTES)) {
      reply(conn, msg, 'error', { reason: TOPIC_TOO_LONG });
      return;
    }
    const previous = conn.channels.get(msg.topic);
    if (previous) leave(previous);
    if (conn.channels.size >= MAX_CHANNELS_PER_SOCKET) {
      reply(conn, msg, 'error', { reason: TOO_MANY_CHANNELS });
      return;
    }
    const payload = asRecord(msg.payload);
    if (requestedBindings(payload) > MAX_BINDINGS_PER_JOIN) {
      reply(conn, msg, 'error', { reason: TOO_MANY_BINDINGS_PER_JOIN });
      return;
    }
    const config = asRecord(payload.config);
    const key = presenceKey(config);
    if (key === null) {
      reply(conn, msg, 'error', { reason: PRESENCE_KEY_TOO_LONG });
      return;
    }
    const token = typeof payload.access_token === 'string' ? payload.access_token : conn.apikey;
    let claims: Claims;
    try {
      claims = await hub.verifyToken(token);
    } catch (error) {
      reply(conn, msg, 'error', { reason: tokenReason(error) });
      return;
    }
    const isPrivate = config.private === true;
    const name = subTopic(msg.topic);
    if (name.startsWith(REGION_PREFIX) && !isPrivate) {
      reply(conn, msg, 'error', { reason: PRIVATE_ONLY });
      return;
    }
    const presenceEnabled = asRecord(config.presence).enabled === true;
    let wallet: string | null = null;
    let reads = { broadcast: true, presence: true };
    if (isPrivate) {
      if (waitedTooLong(msg, arrived)) return;
      const verdict = await readVerdict(claims, name);
      // As on hosted, presence read counts for the join only when the join asks for presence.
      if (!verdict.broadcast && !(presenceEnabled && verdict.presence)) {
        reply(conn, msg, 'error', { reason: readRefused(name) });
        return;
      }
      wallet = verdict.wallet;
      reads = { broadcast: verdict.broadcast, presence: verdict.presence };
    }
    const broadcast = asRecord(config.broadcast);
    const replay = replayRequest(broadcast, isPrivate);
    if (typeof replay === 'string') {
      reply(conn, msg, 'error', { reason: replay });
      return;
    }
    // As on hosted, replay needs broadcast read even where presence read let the channel join.
    if (replay && !reads.broadcast) {
      reply(conn, msg, 'error', { reason: readRefused(name) });
      return;
    }
    let replayed: Broadcast[] = [];
    if (replay) {
      try {
        replayed = await hub.replay(name, replay.since, replay.limit);
      } catch (error) {
        hub.log(`realtime: replay of ${name} failed: ${(error as Error).message}`);
        reply(conn, msg, 'error', { reason: REPLAY_FAILED });
        return;
      }
    }
    await hub.catalogueSettled();
    const { bindings, problems } = readBindings(msg.payload, hub.lookup);
    const tablesBound = bindings.reduce((sum, binding) => sum + binding.tables.length, 0);
    if (heldBindings(conn) + tablesBound > MAX_BINDINGS_PER_SOCKET) {
      reply(conn, msg, 'error', { reason: TOO_MANY_BINDINGS_PER_SOCKET });
      return;
    }
    if (problems.length > 0) hub.refreshTablesSoon();
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
      broadcastBatch: broadcast.batch === true,
      expiry: null,
      private: isPrivate,
      reads,
      wallet,
      writes: {},
      presence: { key, enabled: presenceEnabled, meta: null, events: 0, windowEnds: 0 },
      replayed: new Set(replayed.map((item) => item.meta!.id)),
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
    if (presenceEnabled && reads.presence) {
      send(conn, { joinRef: channel.joinRef, ref: null, topic: channel.topic, event: 'presence_state', payload: hub.presence.state(channel) });
    }
    deliverReplay(channel, replayed);
    // Changes and database broadcasts are captured before the reply, so the "replication" a
    // client may wait for is in place at once.
    if (broadcast.replication_ready === true || broadcast.replication_ready === 'true') system(channel, 'system', 'ok', 'Replication connection established');
    if (bindings.length === 0) return;
    if (problems.length > 0) system(channel, 'postgres_changes', 'error', problems.join('; '));
    else system(channel, 'postgres_changes', 'ok', 'Subscribed to PostgreSQL');
  }

  async function readVerdict(claims: Claims, name: string): Promise<ReadVerdict> {
    try {
      return await hub.authorizeRead(claims, name);
    } catch (error) {
      hub.log(`realtime: read policies of ${name} failed: ${(error as Error).message}`);
      return { broadcast: false, presence: false, wallet: null };
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
    let reads = channel.reads;
    if (channel.private) {
      const verdict = await readVerdict(claims, subTopic(channel.topic));
      if (!verdict.broadcast && !(channel.presence.enabled && verdict.presence)) {
        close(channel, readRevoked(subTopic(channel.topic)));
        return;
      }
      wallet = verdict.wallet;
      reads = { broadcast: verdict.broadcast, presence: verdict.presence };
    }
    Object.assign(channel, { token, claims, claimsJson: next.claimsJson, access, reads, wallet, writes: {} });
    hub.dispatcher.refresh(channel);
    armExpiry(channel);
  }

  /**
   * The channel's write verdict for `extension`, asked again once WRITE_CHECK_MS old (less a
   * random part, WRITE_CHECK_SPREAD). While a renewal is asked, a verdict that allowed writing
   * stands for up to WRITE_CHECK_MS more, so an honest sender's messages do not wait for the
   * database every few seconds; a refusal or a first check is waited for.
   */
  function mayWrite(channel: Channel, extension: WriteExtension): Promise<boolean> {
    const now = performance.now();
    const known = channel.writes[extension];
    if (known && known.until > now) return known.allowed;
    const verdict: WriteVerdict = { allowed: Promise.resolve(false), until: now + WRITE_CHECK_MS * (1 - WRITE_CHECK_SPREAD * Math.random()), granted: null };
    verdict.allowed = hub
      .authorizeWrite(channel.claims, subTopic(channel.topic), extension)
      .catch((error: unknown) => {
        hub.log(`realtime: write policies of ${channel.topic} failed: ${(error as Error).message}`);
        return false;
      })
      .then((granted) => (verdict.granted = granted));
    channel.writes[extension] = verdict;
    if (known?.granted === true && now < known.until + WRITE_CHECK_MS) return Promise.resolve(true);
    return verdict.allowed;
  }

  /**
   * A broadcast push: delivered to the topic's members, then, when its metadata asked for
   * `persist` on a private channel whose `persistence` write policy allows it, stored for
   * replay (as hosted: broadcast first). With `ack` the reply names the stored message's id.
   */
  async function broadcast(channel: Channel, msg: Message, received: Broadcast, persist: boolean, size: number): Promise<void> {
    if (channel.wallet !== null && !hub.takeWalletMessage(channel.wallet)) {
      close(channel, TOO_MANY_MESSAGES);
      return;
    }
    if (size > MAX_BROADCAST_BYTES) {
      reply(conn, msg, 'error', { reason: PAYLOAD_TOO_LARGE });
      return;
    }
    // As on hosted, a send the write policies refuse is dropped without a reply.
    if (channel.private && !(await mayWrite(channel, 'broadcast'))) return;
    if (conn.channels.get(channel.topic) !== channel) return;
    const item = stampedPayload(channel.topic, channel.wallet, received);
    if (!item) {
      reply(conn, msg, 'error', { reason: REGION_PAYLOAD });
      return;
    }
    const key = `${channel.topic}\0${channel.wallet ?? `#${conn.id}`}\0${item.event}`;
    deliverBroadcast(hub.topics.get(channel.topic), channel.topic, channel.private, item, key, channel.broadcastSelf ? null : channel, hub.batches);
    let id: string | null = null;
    if (persist && channel.private && (await mayWrite(channel, 'persistence'))) id = await hub.persist(subTopic(channel.topic), item);
    if (channel.broadcastAck) reply(conn, msg, 'ok', id === null ? {} : { id });
  }

  /** Counts a presence event in the channel's window; false once the window's events are spent. */
  function takePresenceEvent(channel: Channel): boolean {
    const now = performance.now();
    if (now >= channel.presence.windowEnds) {
      channel.presence.events = 0;
      channel.presence.windowEnds = now + PRESENCE_WINDOW_MS;
    }
    if (channel.presence.events >= MAX_PRESENCE_EVENTS_PER_WINDOW) return false;
    channel.presence.events += 1;
    return true;
  }

  /** A `presence` push: track or untrack the channel's presence, as hosted's presence handler does. */
  async function presence(channel: Channel, msg: Message): Promise<void> {
    const payload = asRecord(msg.payload);
    if (!takePresenceEvent(channel)) {
      close(channel, PRESENCE_RATE_LIMITED);
      return;
    }
    const event = typeof payload.event === 'string' ? payload.event.toLowerCase() : null;
    if (event === 'untrack') {
      const left = hub.presence.untrack(channel);
      reply(conn, msg, 'ok', {});
      if (left) presenceChanged(channel, left);
      return;
    }
    if (event !== 'track') {
      reply(conn, msg, 'error', {});
      return;
    }
    // As on hosted, a track the write policies refuse answers a bare error.
    if (channel.private && !(await mayWrite(channel, 'presence'))) {
      reply(conn, msg, 'error', {});
      return;
    }
    if (conn.channels.get(channel.topic) !== channel) return;
    const tracked = payload.payload ?? {};
    if (!isJsonObject(tracked)) {
      reply(conn, msg, 'error', { reason: PRESENCE_NOT_A_MAP });
      return;
    }
    const json = JSON.stringify(tracked);
    if (channel.presence.meta?.json === json) {
      reply(conn, msg, 'ok', {});
      return;
    }
    if (Buffer.byteLength(json) + Buffer.byteLength(channel.presence.key) > MAX_PRESENCE_BYTES) {
      close(channel, TRACK_TOO_LARGE);
      return;
    }
    const result = hub.presence.track(channel, tracked, json);
    if ('refused' in result) {
      reply(conn, msg, 'error', { reason: result.refused });
      return;
    }
    reply(conn, msg, 'ok', {});
    presenceChanged(channel, result.diff);
  }

  function textBroadcast(msg: Message): Broadcast {
    const payload = asRecord(msg.payload);
    if (typeof payload.event !== 'string') throw new MalformedFrame('broadcast needs a string event');
    if (!fitsBytes(payload.event, MAX_NAME_BYTES)) throw new MalformedFrame(EVENT_TOO_LONG);
    return { event: payload.event, payload: payload.payload ?? {}, binary: false };
  }

  async function handle(msg: Message, fromBinary: BroadcastPush | null, size: number, paid: boolean, arrived: number): Promise<void> {
    if (msg.topic === 'phoenix') {
      if (msg.event === 'heartbeat') reply(conn, msg, 'ok', {});
      else reply(conn, msg, 'error', { reason: `unknown event ${msg.event} on topic phoenix` });
      return;
    }
    if (msg.event === 'phx_join') return join(msg, arrived);
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
        return fromBinary ? broadcast(channel, msg, fromBinary.payload, fromBinary.persist, size) : broadcast(channel, msg, textBroadcast(msg), false, size);
      case 'presence':
        return presence(channel, msg);
      default:
        reply(conn, msg, 'error', { reason: `unsupported event ${msg.event}` });
    }
  }

  /** Decodes and handles one frame that reached the socket at `arrived` (performance.now()). */
  async function receive(data: Buffer, isBinary: boolean, arrived: number): Promise<void> {
    // Past its budget a socket's frames are dropped unread until the budget refills, so a flood
    // costs no decoding.
    let paid = false;
    if (shedding) {
      if (!conn.messages.take()) return;
      shedding = false;
      paid = true;
    }
    let msg: Message;
    let fromBinary: BroadcastPush | null = null;
    try {
      if (isBinary) {
        if (conn.vsn !== '2.0.0') throw new MalformedFrame('binary frames need vsn 2.0.0');
        fromBinary = decodeBinary(data);
        msg = fromBinary;
      } else {
        msg = decodeText(data.toString('utf8'), conn.vsn);
      }
    } catch (error) {
      if (!(error instanceof MalformedFrame)) throw error;
      send(conn, { joinRef: null, ref: null, topic: 'phoenix', event: 'phx_error', payload: { reason: error.message } });
      return;
    }
    try {
      await handle(msg, fromBinary, data.length, paid, arrived);
    } catch (error) {
      const reason = error instanceof JoinError || error instanceof MalformedFrame ? error.message : 'internal error';
      if (reason === 'internal error') hub.log(`realtime: ${msg.event} on ${msg.topic.slice(0, MAX_NAME_BYTES)} failed: ${errorMessage(error)}`);
      reply(conn, msg, 'error', { reason });
    }
  }

  // Queued behind frames being handled, so a join that verified its token just before the
  // session ended is closed too.
  const endSession = (sessionId: string) => {
    chain = chain
      .then(() => {
        for (const channel of [...conn.channels.values()]) {
          if (channel.claims.session_id === sessionId) close(channel, 'Token has been revoked');
        }
      })
      .catch((error: unknown) => hub.log(`realtime: ending a session's channels failed: ${errorMessage(error)}`));
  };
  hub.sessionEnders.add(endSession);

  conn.ws.on('message', (data: Buffer, isBinary: boolean) => {
    const arrived = performance.now();
    chain = chain.then(() => receive(data, isBinary, arrived)).catch((error: unknown) => hub.log(`realtime: ${(error as Error).message}`));
  });
  conn.ws.on('close', () => {
    hub.sessionEnders.delete(endSession);
    chain = chain
      .then(() => {
        for (const channel of [...conn.channels.values()]) leave(channel);
      })
      .catch((error: unknown) => hub.log(`realtime: leaving the channels of a closed socket failed: ${errorMessage(error)}`));
  });
  conn.ws.on('error', (error) => hub.log(`realtime: socket error ${error.message}`));
}
