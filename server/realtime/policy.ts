import { PRIVATE_ONLY } from './limits.js';
import type { Broadcast } from './protocol.js';

/**
 * The rules an application adds to the Supabase-compatible transport for its own topics. The
 * transport asks it at the few points where hosted Realtime leaves the choice to the project;
 * everything else (frames, limits, the policies on realtime.messages) stays the transport's.
 */
export interface ChannelPolicy {
  /**
   * Whether `topic` (without `realtime:`) may be used as a public channel, joined over the
   * socket or broadcast to over the REST API. Refused, it is answered as hosted answers a project
   * that only allows private channels.
   */
  allowsPublic(topic: string): boolean;
  /**
   * The broadcast delivered when `sender` (what {@link senderSql} named for the caller, or null)
   * sends `item` on `topic` (without `realtime:`): `item` itself, a copy carrying the sender,
   * or, as a string, the reason the broadcast is refused.
   */
  stamp(topic: string, sender: string | null, item: Broadcast): Broadcast | string;
  /**
   * An SQL expression evaluated under the caller's role and claims in the read and send checks
   * of private channels and REST broadcasts, naming the sender: its broadcasts are stamped with it
   * and its message budget is kept under it across sockets. Null: senders are not named.
   */
  senderSql: string | null;
}

/** The transport's own behaviour, as plain Supabase Realtime: every topic may be public, broadcasts pass as sent. */
export const PLAIN_POLICY: ChannelPolicy = {
  allowsPublic: () => true,
  stamp: (_topic, _sender, item) => item,
  senderSql: null,
};

/** The reason a public use of `topic` (without `realtime:`) is refused under `policy`, hosted's PrivateOnly; null when it may be public. */
export function publicRefusal(policy: ChannelPolicy, topic: string): string | null {
  return policy.allowsPublic(topic) ? null : PRIVATE_ONLY;
}
