import { isJsonObject } from '../http/json.js';
import type { Channel } from './channel.js';
import { mayWrite } from './channel-rights.js';
import { deliverBroadcast } from './delivery.js';
import type { Hub } from './hub.js';
import {
  EVENT_TOO_LONG,
  MAX_BROADCAST_BYTES,
  MAX_NAME_BYTES,
  MAX_PRESENCE_BYTES,
  MAX_PRESENCE_EVENTS_PER_WINDOW,
  PAYLOAD_TOO_LARGE,
  PRESENCE_NOT_A_MAP,
  PRESENCE_RATE_LIMITED,
  PRESENCE_WINDOW_MS,
  TOO_MANY_MESSAGES,
  TRACK_TOO_LARGE,
} from './limits.js';
import { close, presenceChanged } from './membership.js';
import { MalformedFrame, fitsBytes } from './protocol.js';
import type { Broadcast, Message } from './protocol.js';
import { asRecord, reply, subTopic } from './replies.js';

/** The broadcast of a text `broadcast` push: its string event (at most MAX_NAME_BYTES) and payload; a malformed frame otherwise. */
export function textBroadcast(msg: Message): Broadcast {
  const payload = asRecord(msg.payload);
  if (typeof payload.event !== 'string') throw new MalformedFrame('broadcast needs a string event');
  if (!fitsBytes(payload.event, MAX_NAME_BYTES)) throw new MalformedFrame(EVENT_TOO_LONG);
  return { event: payload.event, payload: payload.payload ?? {}, binary: false };
}

/**
 * A broadcast push of `size` bytes: taken from the sender's budget, checked against the write
 * policies (private channels) and stamped by the application's policy, delivered to the topic's
 * members, then, when its metadata asked for `persist` on a private channel whose `persistence`
 * write policy allows it, stored for replay (as hosted: broadcast first). With `ack` the reply
 * names the stored message's id.
 */
export async function broadcast(hub: Hub, channel: Channel, msg: Message, received: Broadcast, persist: boolean, size: number): Promise<void> {
  const conn = channel.conn;
  if (channel.sender !== null && !hub.takeSenderMessage(channel.sender)) {
    close(hub, channel, TOO_MANY_MESSAGES);
    return;
  }
  if (size > MAX_BROADCAST_BYTES) {
    reply(conn, msg, 'error', { reason: PAYLOAD_TOO_LARGE });
    return;
  }
  // As on hosted, a send the write policies refuse is dropped without a reply.
  if (channel.private && !(await mayWrite(hub, channel, 'broadcast'))) return;
  if (conn.channels.get(channel.topic) !== channel) return;
  const item = hub.policy.stamp(subTopic(channel.topic), channel.sender, received);
  if (typeof item === 'string') {
    reply(conn, msg, 'error', { reason: item });
    return;
  }
  const key = `${channel.topic}\0${channel.sender ?? `#${conn.id}`}\0${item.event}`;
  // The topic a socket speaks on is where its player stands: broadcasts there are near to it.
  conn.outbound.nearTopic = channel.topic;
  deliverBroadcast(hub.topics.get(channel.topic), channel.topic, channel.private, item, key, channel.broadcastSelf ? null : channel, hub.batches);
  hub.relay.broadcast(channel.topic, channel.private, item, key);
  let id: string | null = null;
  if (persist && channel.private && (await mayWrite(hub, channel, 'persistence'))) id = await hub.persist(subTopic(channel.topic), item);
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

/** An `untrack`: the channel's presence leaves, and the topic's members are told. */
function untrack(hub: Hub, channel: Channel, msg: Message): void {
  const left = hub.presence.untrack(channel);
  reply(channel.conn, msg, 'ok', {});
  if (left) presenceChanged(hub, channel, left);
}

/**
 * A `track` of `tracked` (the push's payload): refused when not a JSON object, closing the
 * channel past MAX_PRESENCE_BYTES, a no-op when the channel already tracks the same, else
 * tracked and told to the topic's members.
 */
function track(hub: Hub, channel: Channel, msg: Message, tracked: unknown): void {
  const conn = channel.conn;
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
    close(hub, channel, TRACK_TOO_LARGE);
    return;
  }
  const result = hub.presence.track(channel, tracked, json);
  if ('refused' in result) {
    reply(conn, msg, 'error', { reason: result.refused });
    return;
  }
  reply(conn, msg, 'ok', {});
  presenceChanged(hub, channel, result.diff);
}

/** A `presence` push: track or untrack the channel's presence, as hosted's presence handler does. */
export async function presence(hub: Hub, channel: Channel, msg: Message): Promise<void> {
  const payload = asRecord(msg.payload);
  if (!takePresenceEvent(channel)) {
    close(hub, channel, PRESENCE_RATE_LIMITED);
    return;
  }
  const event = typeof payload.event === 'string' ? payload.event.toLowerCase() : null;
  if (event === 'untrack') return untrack(hub, channel, msg);
  if (event !== 'track') {
    reply(channel.conn, msg, 'error', {});
    return;
  }
  // As on hosted, a track the write policies refuse answers a bare error.
  if (channel.private && !(await mayWrite(hub, channel, 'presence'))) {
    reply(channel.conn, msg, 'error', {});
    return;
  }
  if (channel.conn.channels.get(channel.topic) !== channel) return;
  track(hub, channel, msg, payload.payload ?? {});
}
