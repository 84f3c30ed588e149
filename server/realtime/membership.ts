import type { Channel } from './channel.js';
import { deliverPresenceDiff } from './delivery.js';
import { guarded } from './guard.js';
import type { Hub } from './hub.js';
import type { PresenceDiff } from './presence-wire.js';
import { send, system } from './replies.js';

/** setTimeout cannot wait longer than this; later expiries are not scheduled. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Sends a presence change of `channel` to its topic's members of the same privacy, on every node. */
export function presenceChanged(hub: Hub, channel: Channel, diff: PresenceDiff): void {
  deliverPresenceDiff(hub.topics.get(channel.topic), channel.topic, channel.private, diff);
  hub.relay.presenceChanged(channel.topic, channel.private, diff);
}

/** Makes a joined channel a member of its topic: it receives broadcasts, presence and changes from now on. */
export function enter(hub: Hub, channel: Channel): void {
  channel.conn.channels.set(channel.topic, channel);
  let members = hub.topics.get(channel.topic);
  if (!members) {
    hub.topics.set(channel.topic, (members = new Set()));
    hub.relay.topicOpened(channel.topic);
  }
  members.add(channel);
  hub.dispatcher.add(channel);
  armExpiry(hub, channel);
}

/** Removes a channel from its connection and topic, untracks its presence (telling the others) and stops its changes. */
export function leave(hub: Hub, channel: Channel): void {
  const conn = channel.conn;
  if (conn.channels.get(channel.topic) === channel) conn.channels.delete(channel.topic);
  const members = hub.topics.get(channel.topic);
  if (members?.delete(channel) && members.size === 0) {
    hub.topics.delete(channel.topic);
    hub.relay.topicClosed(channel.topic);
  }
  const left = hub.presence.untrack(channel);
  if (left) presenceChanged(hub, channel, left);
  hub.dispatcher.remove(channel);
  if (channel.expiry) clearTimeout(channel.expiry);
}

/** Shuts a channel down from the server's side: a `system` error naming `reason`, then `phx_close`, then {@link leave}. */
export function close(hub: Hub, channel: Channel, reason: string): void {
  system(channel, 'system', 'error', reason);
  send(channel.conn, { joinRef: channel.joinRef, ref: channel.joinRef, topic: channel.topic, event: 'phx_close', payload: {} });
  leave(hub, channel);
}

/** (Re)schedules the channel's close when its token expires. */
export function armExpiry(hub: Hub, channel: Channel): void {
  if (channel.expiry) clearTimeout(channel.expiry);
  const ms = channel.claims.exp * 1000 - Date.now();
  const expire = guarded(`expiry of ${channel.topic}`, () => close(hub, channel, 'Token has expired'), () => leave(hub, channel));
  channel.expiry = ms < MAX_TIMER_MS ? setTimeout(expire, Math.max(ms, 0)) : null;
}
