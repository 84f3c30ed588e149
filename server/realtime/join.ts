import { randomUUID } from 'node:crypto';
import type { Claims } from '../db/index.js';
import { isJsonObject } from '../http/json.js';
import type { Extension } from './authorization.js';
import { JoinError, readBindings } from './bindings.js';
import type { RequestedBinding } from './bindings.js';
import type { Channel, Conn } from './channel.js';
import { accessFor, readVerdict } from './channel-rights.js';
import { deliverReplay } from './delivery.js';
import type { Hub } from './hub.js';
import {
  JOIN_WAIT_MS,
  JOIN_WAITED_TOO_LONG,
  MAX_BINDINGS_PER_JOIN,
  MAX_BINDINGS_PER_SOCKET,
  MAX_CHANNELS_PER_SOCKET,
  MAX_NAME_BYTES,
  MAX_PRESENCE_KEY_BYTES,
  PRESENCE_KEY_TOO_LONG,
  REPLAY_FAILED,
  REPLAY_INVALID,
  REPLAY_PUBLIC,
  TOO_MANY_BINDINGS_PER_JOIN,
  TOO_MANY_BINDINGS_PER_SOCKET,
  TOO_MANY_CHANNELS,
  TOO_MANY_JOINS,
  TOPIC_TOO_LONG,
  readRefused,
} from './limits.js';
import { enter, leave } from './membership.js';
import { publicRefusal } from './policy.js';
import { fitsBytes } from './protocol.js';
import type { Broadcast, Message } from './protocol.js';
import { asRecord, reply, send, subTopic, system, tokenReason } from './replies.js';

/** What a join asked for, read from its payload before anything costs the database. */
interface JoinRequest {
  msg: Message;
  /** When the join reached the socket (performance.now()). */
  arrived: number;
  /** The topic without `realtime:`. */
  name: string;
  token: string;
  isPrivate: boolean;
  /** `config.broadcast` of the join. */
  broadcast: Record<string, unknown>;
  presenceKey: string;
  presenceEnabled: boolean;
}

/** What the read policies granted a channel: what it may receive and who it sends as. */
interface Grant {
  reads: Record<Extension, boolean>;
  sender: string | null;
}

/** The join's postgres_changes bindings, and the problems reported after the join (unknown tables, bad filters). */
interface Bound {
  bindings: RequestedBinding[];
  problems: string[];
}

/** Refuses the join with `reason`: the join is answered with an error naming it (see `receive` in connection.ts). */
function refuse(reason: string): never {
  throw new JoinError(reason);
}

/** Refuses a join that has waited past JOIN_WAIT_MS since it arrived: its client has given up on it. */
function refuseIfStale(arrived: number): void {
  if (performance.now() - arrived >= JOIN_WAIT_MS) refuse(JOIN_WAITED_TOO_LONG);
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
 * The socket's own bounds on a join, checked in this order before anything else: its wait, the
 * joins-per-second budget, the topic's length, then (after leaving the channel the join
 * replaces) the channels a socket may hold (its joined channels and its `underWay` joins), the
 * bindings of one join and the presence key's length.
 */
function readRequest(hub: Hub, conn: Conn, msg: Message, arrived: number, underWay: number): JoinRequest {
  refuseIfStale(arrived);
  if (!conn.joins.take()) refuse(TOO_MANY_JOINS);
  // Within MAX_NAME_BYTES every message of the channel (binary broadcasts and batches) can be encoded.
  if (!fitsBytes(msg.topic, MAX_NAME_BYTES)) refuse(TOPIC_TOO_LONG);
  const previous = conn.channels.get(msg.topic);
  if (previous) leave(hub, previous);
  if (conn.channels.size + underWay >= MAX_CHANNELS_PER_SOCKET) refuse(TOO_MANY_CHANNELS);
  const payload = asRecord(msg.payload);
  if (requestedBindings(payload) > MAX_BINDINGS_PER_JOIN) refuse(TOO_MANY_BINDINGS_PER_JOIN);
  const config = asRecord(payload.config);
  const key = presenceKey(config);
  if (key === null) refuse(PRESENCE_KEY_TOO_LONG);
  return {
    msg,
    arrived,
    name: subTopic(msg.topic),
    token: typeof payload.access_token === 'string' ? payload.access_token : conn.apikey,
    isPrivate: config.private === true,
    broadcast: asRecord(config.broadcast),
    presenceKey: key,
    presenceEnabled: asRecord(config.presence).enabled === true,
  };
}

/** The claims of the join's token (its `access_token`, else the socket's key); refused in hosted's words when it does not verify. */
async function authenticate(hub: Hub, request: JoinRequest): Promise<Claims> {
  try {
    return await hub.verifyToken(request.token);
  } catch (error) {
    refuse(tokenReason(error));
  }
}

/**
 * Authorisation of the join: a public channel reads everything, where the application's policy
 * allows the topic to be public; a private one what the read policies of realtime.messages grant,
 * refused when they grant neither broadcast nor (for a join that asks for it) presence.
 */
async function authorize(hub: Hub, conn: Conn, request: JoinRequest, claims: Claims): Promise<Grant> {
  if (!request.isPrivate) {
    const refusal = publicRefusal(hub.policy, request.name);
    if (refusal !== null) refuse(refusal);
    return { reads: { broadcast: true, presence: true }, sender: null };
  }
  refuseIfStale(request.arrived);
  const verdict = await readVerdict(hub, claims, request.name, conn.address, request.arrived + JOIN_WAIT_MS);
  // As on hosted, presence read counts for the join only when the join asks for presence.
  if (!verdict.broadcast && !(request.presenceEnabled && verdict.presence)) refuse(readRefused(request.name));
  return { reads: { broadcast: verdict.broadcast, presence: verdict.presence }, sender: verdict.sender };
}

/** The stored messages the join asked to replay (none unless it asked); refused as hosted refuses a replay. */
async function readReplay(hub: Hub, request: JoinRequest, grant: Grant): Promise<Broadcast[]> {
  const replay = replayRequest(request.broadcast, request.isPrivate);
  if (typeof replay === 'string') refuse(replay);
  if (!replay) return [];
  // As on hosted, replay needs broadcast read even where presence read let the channel join.
  if (!grant.reads.broadcast) refuse(readRefused(request.name));
  try {
    return await hub.replay(request.name, replay.since, replay.limit);
  } catch (error) {
    hub.log(`realtime: replay of ${request.name} failed: ${(error as Error).message}`);
    refuse(REPLAY_FAILED);
  }
}

/** The join's postgres_changes bindings, once a catalogue refresh under way is done; refused past the socket's bound. */
async function bind(hub: Hub, conn: Conn, msg: Message): Promise<Bound> {
  await hub.catalogueSettled();
  const { bindings, problems } = readBindings(msg.payload, hub.lookup);
  const tablesBound = bindings.reduce((sum, binding) => sum + binding.tables.length, 0);
  if (heldBindings(conn) + tablesBound > MAX_BINDINGS_PER_SOCKET) refuse(TOO_MANY_BINDINGS_PER_SOCKET);
  if (problems.length > 0) hub.refreshTablesSoon();
  return { bindings, problems };
}

/** The channel a join opens, with one binding per table its bindings name (table access is read after). */
function openChannel(conn: Conn, request: JoinRequest, claims: Claims, grant: Grant, replayed: Broadcast[], bound: Bound): Channel {
  const { msg, broadcast } = request;
  const channel: Channel = {
    conn,
    topic: msg.topic,
    joinRef: msg.joinRef ?? msg.ref,
    token: request.token,
    claims,
    claimsJson: JSON.stringify(claims),
    access: new Map(),
    bindings: [],
    broadcastSelf: broadcast.self === true,
    broadcastAck: broadcast.ack === true,
    broadcastBatch: broadcast.batch === true,
    expiry: null,
    private: request.isPrivate,
    reads: grant.reads,
    sender: grant.sender,
    writes: {},
    presence: { key: request.presenceKey, enabled: request.presenceEnabled, meta: null, events: 0, windowEnds: 0 },
    replayed: new Set(replayed.map((item) => item.meta!.id)),
  };
  for (const requested of bound.bindings) {
    for (const table of requested.tables) {
      channel.bindings.push({ channel, id: requested.echo.id, event: requested.event, table, filter: requested.filter, select: requested.select });
    }
  }
  return channel;
}

/**
 * What a joined channel is sent, in order: the join reply echoing its bindings, the presence
 * state (when it asked for presence and may read it), the replayed messages, then the system
 * messages on replication and its postgres_changes.
 */
function welcome(hub: Hub, channel: Channel, request: JoinRequest, replayed: Broadcast[], bound: Bound): void {
  const { bindings, problems } = bound;
  reply(channel.conn, request.msg, 'ok', { postgres_changes: bindings.map((binding) => binding.echo) });
  if (request.presenceEnabled && channel.reads.presence) {
    send(channel.conn, { joinRef: channel.joinRef, ref: null, topic: channel.topic, event: 'presence_state', payload: hub.presence.state(channel) });
  }
  deliverReplay(channel, replayed);
  // Changes and database broadcasts are captured before the reply, so the "replication" a
  // client may wait for is in place at once.
  const ready = request.broadcast.replication_ready;
  if (ready === true || ready === 'true') system(channel, 'system', 'ok', 'Replication connection established');
  if (bindings.length === 0) return;
  if (problems.length > 0) system(channel, 'postgres_changes', 'error', problems.join('; '));
  else system(channel, 'postgres_changes', 'ok', 'Subscribed to PostgreSQL');
}

/** A socket's joins under way: how many, and the end of the last one's turn (joins finish in the order they came). */
export interface JoinsUnderWay {
  count: number;
  last: Promise<void>;
}

/** A socket's joins before its first: none under way. */
export function noJoinsUnderWay(): JoinsUnderWay {
  return { count: 0, last: Promise.resolve() };
}

/** Who the join's token names, and what the read policies grant it. */
async function admit(hub: Hub, conn: Conn, request: JoinRequest): Promise<{ claims: Claims; grant: Grant }> {
  const claims = await authenticate(hub, request);
  return { claims, grant: await authorize(hub, conn, request, claims) };
}

/** The rest of an admitted join, in its turn: replay and bindings, then the channel joins its topic and is welcomed. */
async function finish(hub: Hub, conn: Conn, request: JoinRequest, admitted: Promise<{ claims: Claims; grant: Grant }>): Promise<void> {
  const { claims, grant } = await admitted;
  const replayed = await readReplay(hub, request, grant);
  const bound = await bind(hub, conn, request.msg);
  const channel = openChannel(conn, request, claims, grant, replayed, bound);
  channel.access = await accessFor(hub, channel);
  // Its tables are captured before it joins, so no change committed after the reply is missed.
  if (channel.bindings.length > 0) await hub.dispatcher.capture(channel);
  enter(hub, channel);
  welcome(hub, channel, request, replayed, bound);
}

/**
 * A `phx_join` that reached the socket at `arrived` (performance.now()): the socket's bounds at
 * once, then the token and authorisation, which run alongside the socket's other joins (so a
 * player's joins of the moment are checked together, read-checks.ts); then, in the order the
 * joins came (`underWay`), replay and bindings, and the channel joins its topic and is welcomed.
 * A refusal at any step throws a {@link JoinError} naming the reason, which the join's error
 * reply carries.
 */
export async function join(hub: Hub, conn: Conn, msg: Message, arrived: number, underWay: JoinsUnderWay): Promise<void> {
  const request = readRequest(hub, conn, msg, arrived, underWay.count);
  const admitted = admit(hub, conn, request);
  // Its refusal is read in its turn; until then it is not an unhandled rejection.
  admitted.catch(() => undefined);
  const turn = underWay.last.then(() => finish(hub, conn, request, admitted));
  underWay.last = turn.catch(() => undefined);
  underWay.count++;
  try {
    await turn;
  } finally {
    underWay.count--;
  }
}
