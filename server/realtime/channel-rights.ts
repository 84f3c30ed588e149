import type { Claims } from '../db/index.js';
import type { ReadVerdict, WriteExtension } from './authorization.js';
import { JoinError } from './bindings.js';
import type { Access } from './catalog.js';
import type { Channel, WriteVerdict } from './channel.js';
import type { Hub } from './hub.js';
import { WRITE_CHECK_MS, WRITE_CHECK_SPREAD, readRevoked } from './limits.js';
import { armExpiry, close } from './membership.js';
import type { Message } from './protocol.js';
import { asRecord, subTopic, tokenReason } from './replies.js';

/** What the channel's role may read of each table its bindings name, per table oid. */
export async function accessFor(hub: Hub, channel: Pick<Channel, 'bindings' | 'claims'>): Promise<Map<number, Access>> {
  const access = new Map<number, Access>();
  for (const binding of channel.bindings) {
    if (!access.has(binding.table.oid)) access.set(binding.table.oid, await hub.access(channel.claims.role, binding.table));
  }
  return access;
}

/**
 * The read policies' verdict on `name` (a topic without `realtime:`) for a socket of `address`;
 * nothing granted when the check failed (logged). Past `deadline` (see Hub.authorizeRead) the
 * {@link JoinError} refusing it is thrown.
 */
export async function readVerdict(hub: Hub, claims: Claims, name: string, address: string, deadline?: number): Promise<ReadVerdict> {
  try {
    return await hub.authorizeRead(claims, name, address, deadline);
  } catch (error) {
    if (error instanceof JoinError) throw error;
    hub.log(`realtime: read policies of ${name} failed: ${(error as Error).message}`);
    return { broadcast: false, presence: false, sender: null };
  }
}

/**
 * An `access_token` push: the channel takes the new token's claims, table access and (on a
 * private channel) read verdict, or is closed when the token does not verify or the read
 * policies no longer let it join. A key (`sb_...`) or the same token again changes nothing.
 */
export async function updateToken(hub: Hub, channel: Channel, msg: Message): Promise<void> {
  const token = asRecord(msg.payload).access_token;
  if (typeof token !== 'string' || token.startsWith('sb_') || token === channel.token) return;
  let claims: Claims;
  try {
    claims = await hub.verifyToken(token);
  } catch (error) {
    close(hub, channel, tokenReason(error));
    return;
  }
  const claimsJson = JSON.stringify(claims);
  const access = await accessFor(hub, { bindings: channel.bindings, claims });
  let sender = channel.sender;
  let reads = channel.reads;
  if (channel.private) {
    const verdict = await readVerdict(hub, claims, subTopic(channel.topic), channel.conn.address);
    if (!verdict.broadcast && !(channel.presence.enabled && verdict.presence)) {
      close(hub, channel, readRevoked(subTopic(channel.topic)));
      return;
    }
    sender = verdict.sender;
    reads = { broadcast: verdict.broadcast, presence: verdict.presence };
  }
  Object.assign(channel, { token, claims, claimsJson, access, reads, sender, writes: {} });
  hub.dispatcher.refresh(channel);
  armExpiry(hub, channel);
}

/**
 * The channel's write verdict for `extension`, asked again once WRITE_CHECK_MS old (less a
 * random part, WRITE_CHECK_SPREAD). While a renewal is asked, a verdict that allowed writing
 * stands for up to WRITE_CHECK_MS more, so an honest sender's messages do not wait for the
 * database every few seconds; a refusal or a first check is waited for.
 */
export function mayWrite(hub: Hub, channel: Channel, extension: WriteExtension): Promise<boolean> {
  const now = performance.now();
  const known = channel.writes[extension];
  if (known && known.until > now) return known.allowed;
  const verdict: WriteVerdict = { allowed: Promise.resolve(false), until: now + WRITE_CHECK_MS * (1 - WRITE_CHECK_SPREAD * Math.random()), granted: null };
  verdict.allowed = hub
    .authorizeWrite(channel.claims, subTopic(channel.topic), extension, channel.conn.address)
    .catch((error: unknown) => {
      hub.log(`realtime: write policies of ${channel.topic} failed: ${(error as Error).message}`);
      return false;
    })
    .then((granted) => (verdict.granted = granted));
  channel.writes[extension] = verdict;
  if (known?.granted === true && now < known.until + WRITE_CHECK_MS) return Promise.resolve(true);
  return verdict.allowed;
}
