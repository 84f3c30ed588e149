import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Claims } from '../db/index.js';
import { REQUEST_ROLES } from '../db/pool.js';
import { BodyTooLargeError, readBodyBytes } from '../http/body.js';
import { bearerToken, sendJson } from '../http/respond.js';
import { isJsonObject } from '../http/json.js';
import type { SendVerdict } from './authorization.js';
import type { Hub } from './hub.js';
import { publicRefusal } from './policy.js';
import { deliverBroadcast } from './delivery.js';
import {
  API_BATCH_TOO_LARGE,
  API_RATE_LIMITED,
  MAX_API_BODY_BYTES,
  MAX_API_MESSAGES_PER_REQUEST,
  MAX_BROADCAST_BYTES,
  MAX_NAME_BYTES,
  PAYLOAD_TOO_LARGE,
  PERSIST_PRIVATE_ONLY,
} from './limits.js';
import { fitsBytes, type Broadcast } from './protocol.js';

/** What the REST broadcast API needs besides the hub: the anon key and the write policies of a request. */
export interface BroadcastApiDeps {
  hub: Hub;
  anonKey: string;
  verifyToken(token: string): Promise<Claims>;
  /** The caller as the hub's policy names senders, which private `topics` it may broadcast on and which of `persistTopics` it may store broadcasts of. */
  authorizeSends(claims: Claims, topics: Iterable<string>, persistTopics: Iterable<string>): Promise<SendVerdict>;
  /** Takes one request from the network address's budget; false when it is spent. */
  takeAddressRequest(address: string): boolean;
  /** The client address a request counts against. */
  clientAddress(req: IncomingMessage): string;
}

/** One message to broadcast, validated. */
interface ApiMessage {
  topic: string;
  event: string;
  payload: unknown;
  binary: boolean;
  private: boolean;
  /** Store it for replay (the single endpoint's `persist`); the batch endpoint never stores. */
  persist: boolean;
}

/** A refusal: the status and JSON body the request is answered with. */
class Refusal {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

const message = (status: number, text: string) => new Refusal(status, { message: text });

/** The API gateway's answers (as hosted) for a missing or unknown API key. */
const NO_API_KEY = new Refusal(401, { message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' });
const BAD_API_KEY = new Refusal(401, { message: 'Invalid API key', hint: 'Double check your Supabase `anon` or `service_role` API key.' });
/** Hosted Realtime's answer for a token it cannot verify. */
const UNAUTHORIZED = message(401, 'Unauthorized');
/** Hosted's answer to a single private broadcast the write policies refuse. */
const UNAUTHORIZED_WRITE = message(403, 'Unauthorized');
const UNSUPPORTED_MEDIA = new Refusal(415, { error: 'Unsupported Media Type. Use application/json or application/octet-stream' });
const BLANK = "can't be blank";
const INVALID = 'is invalid';
/** Bytes of the `realtime:` prefix that makes an API topic a socket topic. */
const TOPIC_PREFIX_BYTES = Buffer.byteLength('realtime:');
/** The changeset error of a topic whose socket topic would not fit the binary frames. */
const TOPIC_TOO_LONG_ERROR = `should be at most ${MAX_NAME_BYTES - TOPIC_PREFIX_BYTES} byte(s)`;
/** The changeset error of an event name the binary frames cannot carry. */
const EVENT_TOO_LONG_ERROR = `should be at most ${MAX_NAME_BYTES} byte(s)`;

/** Adds the changeset errors of a topic or event name too long for the binary broadcast frames. */
function checkNames(topic: string, event: string, errors: Record<string, string[]>): void {
  if (!errors.topic && !fitsBytes(topic, MAX_NAME_BYTES - TOPIC_PREFIX_BYTES)) errors.topic = [TOPIC_TOO_LONG_ERROR];
  if (!errors.event && !fitsBytes(event, MAX_NAME_BYTES)) errors.event = [EVENT_TOO_LONG_ERROR];
}

function headerOrQuery(req: IncomingMessage, url: URL): string | null {
  const header = req.headers.apikey;
  if (typeof header === 'string' && header !== '') return header;
  return url.searchParams.get('apikey') || null;
}

/** The caller's claims: the API key must be the anon key or a token of this project, the bearer token (else the key) gives the claims. */
async function authenticate(req: IncomingMessage, url: URL, deps: BroadcastApiDeps): Promise<Claims> {
  const apikey = headerOrQuery(req, url);
  if (!apikey) throw NO_API_KEY;
  if (apikey !== deps.anonKey) await deps.verifyToken(apikey).catch(() => Promise.reject(BAD_API_KEY));
  const claims = await deps.verifyToken(bearerToken(req) ?? apikey).catch(() => Promise.reject(UNAUTHORIZED));
  if (!(REQUEST_ROLES as readonly string[]).includes(claims.role)) throw UNAUTHORIZED;
  return claims;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  try {
    return await readBodyBytes(req, MAX_API_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw message(413, 'Request Entity Too Large');
    throw error;
  }
}

function mediaType(req: IncomingMessage): string | null {
  const header = req.headers['content-type'];
  return header ? header.split(';')[0]!.trim().toLowerCase() : null;
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw message(400, 'Bad Request');
  }
}

function blank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function payloadBytes(item: { payload: unknown; binary: boolean }): number {
  return item.binary ? (item.payload as Buffer).length : Buffer.byteLength(JSON.stringify(item.payload));
}

/** Reads one batch message as hosted's changeset does: its errors per field, or the message. */
function readMessage(raw: Record<string, unknown>): { errors: Record<string, string[]> } | { message: ApiMessage } {
  const errors: Record<string, string[]> = {};
  const text = (field: 'topic' | 'event') => {
    const value = raw[field];
    if (value !== undefined && value !== null && typeof value !== 'string') errors[field] = [INVALID];
    else if (blank(value)) errors[field] = [BLANK];
    return value as string;
  };
  const topic = text('topic');
  const event = text('event');
  const payload = raw.payload;
  if (payload !== undefined && payload !== null && !isJsonObject(payload)) errors.payload = [INVALID];
  else if (blank(payload)) errors.payload = [BLANK];
  else if (payloadBytes({ payload, binary: false }) > MAX_BROADCAST_BYTES) errors.payload = [PAYLOAD_TOO_LARGE];
  checkNames(typeof topic === 'string' ? topic : '', typeof event === 'string' ? event : '', errors);
  const flag = raw.private;
  let isPrivate = false;
  if (flag === true || flag === 'true') isPrivate = true;
  else if (flag !== undefined && flag !== null && flag !== false && flag !== 'false') errors.private = [INVALID];
  if (Object.keys(errors).length > 0) return { errors };
  return { message: { topic, event, payload, binary: false, private: isPrivate, persist: false } };
}

/** The messages of a `POST /api/broadcast` body, validated as hosted's batch changeset; a 422 in its error shape otherwise. */
function readBatch(parsed: unknown): ApiMessage[] {
  const list = isJsonObject(parsed) ? parsed.messages : undefined;
  const refuse = (errors: unknown) => new Refusal(422, { errors: { messages: errors } });
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) throw refuse([BLANK]);
  if (!Array.isArray(list) || !list.every(isJsonObject)) throw refuse([INVALID]);
  const read = list.map(readMessage);
  if (read.some((entry) => 'errors' in entry)) throw refuse(read.map((entry) => ('errors' in entry ? entry.errors : {})));
  return read.map((entry) => (entry as { message: ApiMessage }).message);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw message(400, 'Bad Request');
  }
}

/**
 * Whether a single broadcast asks to be stored: `?persist=true`, or `?persist[ttl]=<seconds>`
 * as supabase-js writes a persist with a ttl (kept as long as the server keeps any message).
 */
function persistRequested(url: URL): boolean {
  return url.searchParams.get('persist') === 'true' || url.searchParams.has('persist[ttl]');
}

/**
 * The message of a `POST /api/broadcast/<topic>/events/<event>` request: the body is its payload,
 * JSON or raw bytes. Refused in hosted's changeset shape: a payload over the limit, `persist`
 * without `private`.
 */
async function readSingle(req: IncomingMessage, url: URL, topic: string, event: string): Promise<ApiMessage> {
  const type = mediaType(req);
  const binary = type === 'application/octet-stream';
  const bytes = await body(req);
  const payload = binary ? bytes : parseJson(bytes);
  const isPrivate = url.searchParams.get('private') === 'true';
  const persist = persistRequested(url);
  const errors: Record<string, string[]> = {};
  if (payloadBytes({ payload, binary }) > MAX_BROADCAST_BYTES) errors.payload = [PAYLOAD_TOO_LARGE];
  if (persist && !isPrivate) errors.persist = [PERSIST_PRIVATE_ONLY];
  checkNames(topic, event, errors);
  if (Object.keys(errors).length > 0) throw new Refusal(422, { errors });
  return { topic, event, payload, binary, private: isPrivate, persist };
}

/**
 * Delivers validated messages as socket broadcasts are delivered: public ones to the topic's
 * public members; private ones only on topics the write policies allow (the others are dropped
 * when `refuseUnwritable` is false, as hosted's batch does, or refused with 403, as its single
 * endpoint does). The hub's policy decides which topics may be public and stamps each message
 * with its sender (refusing it with a 422 when it cannot). The messages are taken from the
 * sender's budget together. A delivered message asking for `persist` is then stored for replay
 * when the `persistence` write policy allows it (otherwise it is only delivered, as on hosted);
 * the answer waits for the store, so a join right after replays it.
 */
async function deliver(messages: ApiMessage[], claims: Claims, address: string, deps: BroadcastApiDeps, refuseUnwritable: boolean): Promise<void> {
  if (messages.length > MAX_API_MESSAGES_PER_REQUEST) throw message(429, API_BATCH_TOO_LARGE);
  const policy = deps.hub.policy;
  for (const m of messages) {
    const refusal = m.private ? null : publicRefusal(policy, m.topic);
    if (refusal !== null) throw message(403, refusal);
  }
  const privateTopics = new Set(messages.filter((m) => m.private).map((m) => m.topic));
  const persistTopics = new Set(messages.filter((m) => m.persist).map((m) => m.topic));
  const verdict: SendVerdict =
    privateTopics.size > 0 || claims.role !== 'anon'
      ? await deps.authorizeSends(claims, privateTopics, persistTopics)
      : { writable: new Set(), persistable: new Set(), sender: null };
  if (refuseUnwritable && [...privateTopics].some((topic) => !verdict.writable.has(topic))) throw UNAUTHORIZED_WRITE;
  const sender = verdict.sender ?? (claims.sub ? `sub:${claims.sub}` : `address:${address}`);
  const sent: { topic: string; item: Broadcast; private: boolean; persist: boolean }[] = [];
  for (const m of messages) {
    if (m.private && !verdict.writable.has(m.topic)) continue;
    const topic = `realtime:${m.topic}`;
    const item = policy.stamp(m.topic, verdict.sender, { event: m.event, payload: m.payload, binary: m.binary });
    if (typeof item === 'string') throw message(422, item);
    sent.push({ topic, item, private: m.private, persist: m.persist && verdict.persistable.has(m.topic) });
  }
  if (sent.length > 0 && !deps.hub.takeSenderMessage(sender, sent.length)) throw message(429, API_RATE_LIMITED);
  for (const { topic, item, private: isPrivate } of sent) {
    const key = `${topic}\0${sender}\0${item.event}`;
    deliverBroadcast(deps.hub.topics.get(topic), topic, isPrivate, item, key, null, deps.hub.batches);
    deps.hub.relay.broadcast(topic, isPrivate, item, key);
  }
  for (const { topic, item, persist } of sent) if (persist) await deps.hub.persist(topic.slice('realtime:'.length), item);
}

const SINGLE = /^\/api\/broadcast\/([^/]+)\/events\/([^/]+)$/;

/**
 * Serves the Realtime broadcast REST API under `/realtime/v1`: `POST /api/broadcast` with
 * `{messages: [{topic, event, payload, private}]}` and `POST /api/broadcast/<topic>/events/<event>`
 * (`?private=true`, `?persist=true`, a JSON or `application/octet-stream` body), both answering
 * 202 once the messages were handed to the joined members (and stored, when asked and allowed). Returns false for any other path or method,
 * which the caller answers with a 404.
 */
export async function handleBroadcastApi(req: IncomingMessage, res: ServerResponse, path: string, deps: BroadcastApiDeps): Promise<boolean> {
  const single = SINGLE.exec(path);
  if (req.method !== 'POST' || (path !== '/api/broadcast' && !single)) return false;
  const url = new URL(req.url ?? '/', 'http://localhost');
  const address = deps.clientAddress(req);
  try {
    if (!deps.takeAddressRequest(address)) throw message(429, API_RATE_LIMITED);
    if (single) {
      const type = mediaType(req);
      if (!headerOrQuery(req, url)) throw NO_API_KEY;
      if (type !== null && type !== 'application/json' && type !== 'application/octet-stream') throw UNSUPPORTED_MEDIA;
      const claims = await authenticate(req, url, deps);
      const item = await readSingle(req, url, decodeSegment(single[1]!), decodeSegment(single[2]!));
      await deliver([item], claims, address, deps, true);
    } else {
      const claims = await authenticate(req, url, deps);
      const bytes = await body(req);
      const parsed = mediaType(req)?.endsWith('json') ? parseJson(bytes) : {};
      await deliver(readBatch(parsed), claims, address, deps, false);
    }
    sendJson(res, 202, undefined);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    sendJson(res, error.status, error.body);
  }
  return true;
}
