import { isJsonObject } from '../http/json.js';
import type { Channel, Conn } from './channel.js';
import { encodeText } from './protocol.js';
import type { Message } from './protocol.js';

/** Sends a message to a connection, in order with its other replies. */
export function send(conn: Conn, message: Message): void {
  conn.outbound.durable(Buffer.from(encodeText(conn.vsn, message)), false);
}

/** Answers `to` with a `phx_reply` of `status` and `response`. */
export function reply(conn: Conn, to: Message, status: 'ok' | 'error', response: Record<string, unknown>): void {
  send(conn, { joinRef: to.joinRef, ref: to.ref, topic: to.topic, event: 'phx_reply', payload: { status, response } });
}

/** The channel name a client chose: the topic without `realtime:`. */
export function subTopic(topic: string): string {
  return topic.replace(/^realtime:/, '');
}

/** Sends a channel a `system` message about `extension`, as hosted reports a channel's state. */
export function system(channel: Channel, extension: string, status: 'ok' | 'error', message: string): void {
  const payload = { extension, status, message, channel: subTopic(channel.topic) };
  send(channel.conn, { joinRef: channel.joinRef, ref: null, topic: channel.topic, event: 'system', payload });
}

/** The reason a join or token update gives for a token that did not verify, in hosted's words. */
export function tokenReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /expired/i.test(message) ? 'Token has expired' : `Invalid JWT: ${message}`;
}

/** `value` when it is a JSON object, else an empty one: how a payload's optional fields are read. */
export function asRecord(value: unknown): Record<string, unknown> {
  return isJsonObject(value) ? value : {};
}
