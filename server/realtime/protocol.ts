/** Phoenix serializer versions the client may ask for with `?vsn=`. */
export type Vsn = '1.0.0' | '2.0.0';

/** One Phoenix message, whichever serializer carried it. */
export interface Message {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

/** A broadcast as it travels between channels: the user event and its payload. */
export interface Broadcast {
  event: string;
  /** JSON-encodable payload, or raw bytes from a binary push. */
  payload: unknown;
  binary: boolean;
  /**
   * Set on a message stored in realtime.messages: its id, and `replayed` when it is sent as a
   * replay after a join. Receivers get it as the broadcast's `meta`.
   */
  meta?: BroadcastMeta;
}

/** The `meta` of a stored message, as hosted sends it. */
export interface BroadcastMeta {
  id: string;
  replayed?: true;
}

/** A broadcast push and what its metadata asked for: `persist` stores it for replay. */
export interface BroadcastPush extends Message {
  payload: Broadcast;
  persist: boolean;
}

const KIND_PUSH = 3;
const KIND_BROADCAST = 4;
const JSON_ENCODING = 1;
const BINARY_ENCODING = 0;

/** Thrown for frames that cannot be read as a Phoenix message. */
export class MalformedFrame extends Error {}

/**
 * Longest join_ref, ref and message event of a frame, in UTF-8 bytes (as the one-byte lengths of
 * the binary frames allow); a longer one makes the frame malformed.
 */
export const MAX_FIELD_BYTES = 255;

/** Whether `text` has at most `max` bytes in UTF-8, without encoding it when its length already tells. */
export function fitsBytes(text: string, max: number): boolean {
  // A UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair 4 for 2 units).
  if (text.length * 3 <= max) return true;
  return text.length <= max && Buffer.byteLength(text) <= max;
}

function refOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  let ref: string;
  if (typeof value === 'string') ref = value;
  else if (typeof value === 'number') ref = String(value);
  else throw new MalformedFrame('ref must be a string or null');
  if (!fitsBytes(ref, MAX_FIELD_BYTES)) throw new MalformedFrame(`ref longer than ${MAX_FIELD_BYTES} bytes`);
  return ref;
}

function checkedMessage(joinRef: unknown, ref: unknown, topic: unknown, event: unknown, payload: unknown): Message {
  if (typeof topic !== 'string' || topic === '') throw new MalformedFrame('topic must be a non-empty string');
  if (typeof event !== 'string' || event === '') throw new MalformedFrame('event must be a non-empty string');
  if (!fitsBytes(event, MAX_FIELD_BYTES)) throw new MalformedFrame(`event longer than ${MAX_FIELD_BYTES} bytes`);
  return { joinRef: refOrNull(joinRef), ref: refOrNull(ref), topic, event, payload: payload ?? {} };
}

/** Reads a text frame: a JSON array in vsn 2.0.0, a JSON object in vsn 1.0.0. */
export function decodeText(text: string, vsn: Vsn): Message {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MalformedFrame('frame is not JSON');
  }
  if (vsn === '2.0.0') {
    if (!Array.isArray(parsed) || parsed.length !== 5) throw new MalformedFrame('frame must be [join_ref, ref, topic, event, payload]');
    return checkedMessage(parsed[0], parsed[1], parsed[2], parsed[3], parsed[4]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new MalformedFrame('frame must be an object');
  const m = parsed as Record<string, unknown>;
  return checkedMessage(m.join_ref, m.ref, m.topic, m.event, m.payload);
}

/** Whether a push's metadata (JSON, `{"persist": true}` or `{"persist": {"ttl": n}}`) asks for the message to be stored. */
function persistRequested(metadata: string): boolean {
  if (metadata === '') return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    throw new MalformedFrame('broadcast metadata is not JSON');
  }
  const persist = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).persist : undefined;
  return persist === true || (typeof persist === 'object' && persist !== null);
}

/**
 * Reads a binary "user broadcast push" (kind 3): header lengths, join_ref, ref, topic, user
 * event, metadata, then the payload as JSON or raw bytes. Returns the message with a
 * {@link Broadcast} as payload and whether its metadata asked to persist it.
 */
export function decodeBinary(data: Buffer): BroadcastPush {
  if (data.length < 7 || data[0] !== KIND_PUSH) throw new MalformedFrame('binary frame must be a user broadcast push (kind 3)');
  const lengths = [data[1], data[2], data[3], data[4], data[5]];
  const encoding = data[6];
  let offset = 7;
  const fields = lengths.map((length) => {
    if (offset + length > data.length) throw new MalformedFrame('binary frame is truncated');
    const field = data.toString('utf8', offset, offset + length);
    offset += length;
    return field;
  });
  const [joinRef, ref, topic, event, metadata] = fields;
  const body = data.subarray(offset);
  let payload: unknown;
  if (encoding === JSON_ENCODING) {
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      throw new MalformedFrame('broadcast payload is not JSON');
    }
  } else if (encoding === BINARY_ENCODING) {
    payload = Buffer.from(body);
  } else {
    throw new MalformedFrame('unknown payload encoding');
  }
  const message = checkedMessage(joinRef || null, ref || null, topic, 'broadcast', {});
  return { ...message, payload: { event: event!, payload, binary: encoding === BINARY_ENCODING }, persist: persistRequested(metadata!) };
}

/** Writes a text message for a client speaking `vsn`. */
export function encodeText(vsn: Vsn, message: Message): string {
  const { joinRef, ref, topic, event, payload } = message;
  if (vsn === '2.0.0') return JSON.stringify([joinRef, ref, topic, event, payload]);
  return JSON.stringify({ join_ref: joinRef, ref, topic, event, payload });
}

/** Whether a broadcast on `topic` fits the binary frame's one-byte lengths of topic and event. */
export function fitsBinaryBroadcast(topic: string, event: string): boolean {
  return fitsBytes(topic, MAX_FIELD_BYTES) && fitsBytes(event, MAX_FIELD_BYTES);
}

/**
 * Writes a binary "user broadcast" (kind 4), the only binary frame a 2.0.0 client decodes; a
 * stored message's `meta` travels as its JSON metadata.
 */
export function encodeBinaryBroadcast(topic: string, broadcast: Broadcast): Buffer {
  const metaBytes = broadcast.meta ? Buffer.from(JSON.stringify(broadcast.meta)) : Buffer.alloc(0);
  const body = broadcast.binary ? (broadcast.payload as Buffer) : Buffer.from(JSON.stringify(broadcast.payload ?? {}));
  return userBroadcast(topic, broadcast.event, metaBytes, broadcast.binary ? BINARY_ENCODING : JSON_ENCODING, body);
}

/** Writes a binary user broadcast (kind 4) of `event` whose payload is the JSON text `json`, without metadata. */
export function encodeBinaryJsonBroadcast(topic: string, event: string, json: string): Buffer {
  return userBroadcast(topic, event, Buffer.alloc(0), JSON_ENCODING, Buffer.from(json));
}

function userBroadcast(topic: string, event: string, metaBytes: Buffer, encoding: number, body: Buffer): Buffer {
  const topicBytes = Buffer.from(topic);
  const eventBytes = Buffer.from(event);
  if (topicBytes.length > MAX_FIELD_BYTES || eventBytes.length > MAX_FIELD_BYTES) throw new MalformedFrame(`topic or event longer than ${MAX_FIELD_BYTES} bytes`);
  const header = Buffer.from([KIND_BROADCAST, topicBytes.length, eventBytes.length, metaBytes.length, encoding]);
  return Buffer.concat([header, topicBytes, eventBytes, metaBytes, body]);
}
