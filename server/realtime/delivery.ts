import { isBatchable, takesBatches, type BroadcastBatches } from './batches.js';
import { audience, reaches, type Channel, type Conn } from './channel.js';
import type { PresenceDiff } from './presence-wire.js';
import { encodeBinaryBroadcast, encodeText, fitsBinaryBroadcast } from './protocol.js';
import type { Broadcast, Vsn } from './protocol.js';

/** The `broadcast` message payload of a text frame: `{type, event, payload}`, and `meta` for a stored message. */
function textPayload(item: Broadcast): Record<string, unknown> {
  const payload: Record<string, unknown> = { type: 'broadcast', event: item.event, payload: item.payload };
  if (item.meta) payload.meta = item.meta;
  return payload;
}

/**
 * Hands a broadcast on `topic` (with `realtime:`) to every member of the topic's `members` of the
 * same privacy that may read broadcasts, except `skip` (a sender without `broadcast.self`) and
 * members that were just sent the same stored message as a replay: a binary user broadcast
 * (kind 4) to 2.0.0 sockets, a text `broadcast` message to 1.0.0 sockets (which cannot take raw
 * bytes), each encoded once. `key` names the sender's stream of this event: a socket that is
 * behind keeps only its newest message per key. Members that take batches get a batchable item
 * through `batches` at the end of its window instead. A topic or event name too long for the
 * binary frame (callers refuse those before) reaches nobody: false is returned, else true.
 */
export function deliverBroadcast(
  members: Iterable<Channel> | undefined,
  topic: string,
  isPrivate: boolean,
  item: Broadcast,
  key: string,
  skip: Channel | null,
  batches: BroadcastBatches,
): boolean {
  if (!fitsBinaryBroadcast(topic, item.event)) return false;
  let binary: Buffer | null = null;
  let text: Buffer | null = null;
  let batched = false;
  const batchable = isBatchable(item);
  const id = item.meta?.id;
  const durable = item.meta !== undefined;
  // Walked in place, without audience()'s array: this runs once per pose of a crowd.
  for (const member of members ?? []) {
    if (!reaches(member, isPrivate, 'broadcast') || member === skip || (id !== undefined && member.replayed.has(id))) continue;
    const target = member.conn;
    if (batchable && takesBatches(member)) {
      batched = true;
    } else if (target.vsn === '2.0.0') {
      binary ??= encodeBinaryBroadcast(topic, item);
      if (durable) target.outbound.durable(binary, true);
      else target.outbound.ephemeral(key, binary, true, topic);
    } else if (!item.binary) {
      text ??= Buffer.from(encodeText('1.0.0', { joinRef: null, ref: null, topic, event: 'broadcast', payload: textPayload(item) }));
      if (durable) target.outbound.durable(text, false);
      else target.outbound.ephemeral(key, text, false, topic);
    }
  }
  if (batched) batches.add(topic, isPrivate, key, item, skip);
  return true;
}

/**
 * Sends a `presence_diff` to every member of the topic of the same privacy that may read
 * presence, the channel whose presence changed included, in order with its replies.
 */
export function deliverPresenceDiff(members: Iterable<Channel> | undefined, topic: string, isPrivate: boolean, diff: PresenceDiff): void {
  const encoded = new Map<Vsn, Buffer>();
  for (const member of audience(members, isPrivate, 'presence')) {
    const vsn = member.conn.vsn;
    let frame = encoded.get(vsn);
    if (!frame) {
      frame = Buffer.from(encodeText(vsn, { joinRef: null, ref: null, topic, event: 'presence_diff', payload: diff }));
      encoded.set(vsn, frame);
    }
    member.conn.outbound.durable(frame, false);
  }
}

/**
 * Sends a just-joined channel its topic's stored messages (oldest first, each with `meta:
 * {replayed: true, id}`), in order after its join reply, as hosted pushes them: JSON payloads
 * as `broadcast` text messages with the channel's join_ref, bytes as binary user broadcasts
 * (kind 4) to 2.0.0 sockets only (1.0.0 cannot carry them). A stored message whose event name
 * the binary frame cannot carry is left out.
 */
export function deliverReplay(channel: Channel, items: Broadcast[]): void {
  const conn = channel.conn;
  for (const item of items) {
    if (!fitsBinaryBroadcast(channel.topic, item.event)) continue;
    if (item.binary) {
      if (conn.vsn === '2.0.0') conn.outbound.durable(encodeBinaryBroadcast(channel.topic, item), true);
      continue;
    }
    const message = { joinRef: channel.joinRef, ref: null, topic: channel.topic, event: 'broadcast', payload: textPayload(item) };
    conn.outbound.durable(Buffer.from(encodeText(conn.vsn, message)), false);
  }
}

/** Sends postgres_changes messages (each encoded once, see textFrame in wire.ts) to a connection, as durable messages. */
export function writeFrames(conn: Conn, frames: Buffer[]): void {
  for (const frame of frames) conn.outbound.durable(frame, false);
}
