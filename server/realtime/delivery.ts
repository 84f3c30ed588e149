import type { Channel } from './channel.js';
import type { PresenceDiff } from './presence.js';
import { encodeBinaryBroadcast, encodeText } from './protocol.js';
import type { Broadcast, Vsn } from './protocol.js';

/** The members a topic's message of one privacy reaches: public and private channels of a topic are apart, as on hosted. */
function audience(members: Iterable<Channel> | undefined, isPrivate: boolean, extension: 'broadcast' | 'presence'): Channel[] {
  const reached: Channel[] = [];
  for (const member of members ?? []) if (member.private === isPrivate && member.reads[extension]) reached.push(member);
  return reached;
}

/**
 * Hands a broadcast on `topic` (with `realtime:`) to every member of the topic's `members` of the
 * same privacy that may read broadcasts, except `skip` (a sender without `broadcast.self`): a
 * binary user broadcast (kind 4) to 2.0.0 sockets, a text `broadcast` message to 1.0.0 sockets
 * (which cannot take raw bytes), each encoded once. `key` names the sender's stream of this event:
 * a socket that is behind keeps only its newest message per key.
 */
export function deliverBroadcast(
  members: Iterable<Channel> | undefined,
  topic: string,
  isPrivate: boolean,
  item: Broadcast,
  key: string,
  skip: Channel | null,
): void {
  let binary: Buffer | null = null;
  let text: Buffer | null = null;
  for (const member of audience(members, isPrivate, 'broadcast')) {
    if (member === skip) continue;
    const target = member.conn;
    if (target.vsn === '2.0.0') {
      binary ??= encodeBinaryBroadcast(topic, item);
      target.outbound.ephemeral(key, binary, true);
    } else if (!item.binary) {
      const payload = { type: 'broadcast', event: item.event, payload: item.payload };
      text ??= Buffer.from(encodeText('1.0.0', { joinRef: null, ref: null, topic, event: 'broadcast', payload }));
      target.outbound.ephemeral(key, text, false);
    }
  }
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
