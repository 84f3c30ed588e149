/**
 * The bytes a load bot puts on the wire and reads from it, exactly as supabase-js 2.x writes them
 * with its default serializer (Phoenix vsn 2.0.0, which the game uses): text frames are JSON
 * arrays `[join_ref, ref, topic, event, payload]`; a broadcast push is a binary "user broadcast
 * push" (kind 3) and a broadcast arrives as a binary "user broadcast" (kind 4), the form the
 * server's region batches travel in (docs/protocols.md, "Broadcast batches": batches exist only
 * on 2.0.0 sockets, so a bot speaking 1.0.0 would not load the server as a player does).
 */

/** The `x-client-info` header supabase-js sends from Node (REST and Auth). */
export const CLIENT_INFO = `supabase-js/2.119.1; runtime=node; runtime-version=${process.version.slice(1)}`;

/** realtime-js's socket heartbeat period. */
export const SOCKET_HEARTBEAT_MS = 25_000;

/** A channel's join options as the game hands them to `supabase.channel(topic, {config})`. */
export interface ChannelConfig {
  private?: boolean;
  broadcast?: { self?: boolean; ack?: boolean; batch?: boolean };
}

/** One postgres_changes binding as realtime-js sends it in a join. */
export interface ChangeBinding {
  event: 'INSERT' | 'UPDATE' | 'DELETE' | '*';
  schema: string;
  table: string;
  filter?: string;
}

/**
 * The `phx_join` payload realtime-js sends for a channel made with `config` and bound to
 * `bindings`: its default broadcast options (`ack`, `self`) overridden by the channel's, presence
 * off, the bindings, the privacy, and the access token.
 */
export function joinPayload(config: ChannelConfig, bindings: readonly ChangeBinding[], accessToken: string): string {
  const broadcast = config.broadcast ?? { ack: false, self: false };
  return JSON.stringify({
    config: { broadcast, presence: { key: '', enabled: false }, postgres_changes: bindings, private: config.private ?? false },
    access_token: accessToken,
  });
}

/** A text frame `[join_ref, ref, topic, event, payload]` with `payloadJson` already encoded. */
export function textFrame(joinRef: string | null, ref: string | null, topic: string, event: string, payloadJson: string): string {
  return `[${joinRef === null ? 'null' : JSON.stringify(joinRef)},${ref === null ? 'null' : JSON.stringify(ref)},${JSON.stringify(topic)},${JSON.stringify(event)},${payloadJson}]`;
}

/**
 * A binary user broadcast push (kind 3) of JSON `payloadJson` under `event` on `topic` (with
 * `realtime:`), as realtime-js encodes `channel.send({type: 'broadcast', event, payload})`:
 * kind, the lengths of join_ref, ref, topic, event and metadata (none), the JSON encoding (1),
 * then the fields and the payload.
 */
export function broadcastPush(joinRef: string, ref: string, topic: string, event: string, payloadJson: string): Buffer {
  const head = 7;
  const joinRefBytes = Buffer.byteLength(joinRef);
  const refBytes = Buffer.byteLength(ref);
  const topicBytes = Buffer.byteLength(topic);
  const eventBytes = Buffer.byteLength(event);
  const frame = Buffer.allocUnsafe(head + joinRefBytes + refBytes + topicBytes + eventBytes + Buffer.byteLength(payloadJson));
  frame[0] = 3;
  frame[1] = joinRefBytes;
  frame[2] = refBytes;
  frame[3] = topicBytes;
  frame[4] = eventBytes;
  frame[5] = 0;
  frame[6] = 1;
  let offset = head;
  offset += frame.write(joinRef, offset);
  offset += frame.write(ref, offset);
  offset += frame.write(topic, offset);
  offset += frame.write(event, offset);
  frame.write(payloadJson, offset);
  return frame;
}

/** A binary user broadcast (kind 4) as received: its topic (with `realtime:`), event and parsed JSON payload. */
export interface ReceivedBroadcast {
  topic: string;
  event: string;
  payload: unknown;
}

/** Reads a kind 4 frame; null for another kind or a payload that is not JSON. */
export function readBroadcast(frame: Buffer): ReceivedBroadcast | null {
  if (frame.length < 5 || frame[0] !== 4 || frame[4] !== 1) return null;
  const topicEnd = 5 + frame[1]!;
  const eventEnd = topicEnd + frame[2]!;
  const payloadStart = eventEnd + frame[3]!;
  try {
    return {
      topic: frame.toString('utf8', 5, topicEnd),
      event: frame.toString('utf8', topicEnd, eventEnd),
      payload: JSON.parse(frame.toString('utf8', payloadStart)),
    };
  } catch {
    return null;
  }
}
