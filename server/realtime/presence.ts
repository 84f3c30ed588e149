import { randomBytes } from 'node:crypto';
import type { Channel, PresenceMeta } from './channel.js';
import { MAX_PRESENCE_KEYS_PER_TOPIC, MAX_PRESENCE_METAS_PER_KEY, TOO_MANY_PRESENCE_KEYS, TOO_MANY_PRESENCE_METAS } from './limits.js';
import { roomName, roomParts, type PresenceDiff, type PresenceGroups, type RoomPresences } from './presence-wire.js';
import { RemotePresences } from './remote-presence.js';

/** The outcome of a track: the diff to send to the topic's members, or the reason it was refused. */
export type TrackResult = { diff: PresenceDiff } | { refused: string };

/** The room a channel's presence lives in: public and private channels of one topic are apart, as on hosted. */
function roomOf(channel: Channel): string {
  return roomName(channel.topic, channel.private);
}

/** The meta as it travels: the client's payload with the server's refs, which the payload cannot override. */
function wireMeta(meta: PresenceMeta): Record<string, unknown> {
  const wire: Record<string, unknown> = { ...meta.payload, phx_ref: meta.ref };
  if (meta.prev !== null) wire.phx_ref_prev = meta.prev;
  return wire;
}

function group(key: string, meta: PresenceMeta): PresenceGroups {
  return { [key]: { metas: [wireMeta(meta)] } };
}

/** A Phoenix-style unique ref: 8 random bytes, base64. */
function newRef(): string {
  return randomBytes(8).toString('base64');
}

/**
 * Who is tracked on which topic, as hosted Realtime's Phoenix presence keeps it, over the whole
 * cluster: this node's channels, and what the other nodes track ({@link remote}). Each channel
 * tracks at most one meta under its key, so the registry never holds more local metas than there
 * are joined channels. A track is refused past {@link MAX_PRESENCE_KEYS_PER_TOPIC} keys of a
 * topic or {@link MAX_PRESENCE_METAS_PER_KEY} metas of a key counted over every node, so spreading
 * over nodes does not multiply them (two nodes tracking at the same instant may each take the
 * last place). A channel's meta is removed when it untracks, leaves or its socket closes.
 */
export class PresenceRegistry {
  /** room -> key -> channels tracking under that key (their metas are `channel.presence.meta`). */
  private readonly rooms = new Map<string, Map<string, Set<Channel>>>();
  /** The presences of the other nodes of the cluster. */
  readonly remote = new RemotePresences();

  /** The `presence_state` payload for a channel's topic: every key with its metas, on every node. */
  state(channel: Channel): PresenceGroups {
    const room = roomOf(channel);
    const groups = this.localGroups(room);
    this.remote.addTo(groups, room);
    return groups;
  }

  /** This node's presences of every room, as the bus carries a node's state. */
  snapshot(): RoomPresences[] {
    return [...this.rooms.keys()].map((room) => ({ ...roomParts(room), groups: this.localGroups(room) }));
  }

  private localGroups(room: string): PresenceGroups {
    const groups: PresenceGroups = {};
    for (const [key, channels] of this.rooms.get(room) ?? []) {
      groups[key] = { metas: [...channels].map((member) => wireMeta(member.presence.meta!)) };
    }
    return groups;
  }

  /** Why a first track under `key` in `room` is refused on the cluster's counts, or null. */
  private refusal(room: string, key: string): string | null {
    const keys = this.rooms.get(room);
    const metas = (keys?.get(key)?.size ?? 0) + this.remote.metaCount(room, key);
    if (metas >= MAX_PRESENCE_METAS_PER_KEY) return TOO_MANY_PRESENCE_METAS;
    if (metas > 0) return null;
    const all = this.remote.keys(room);
    for (const local of keys?.keys() ?? []) all.add(local);
    return all.size >= MAX_PRESENCE_KEYS_PER_TOPIC ? TOO_MANY_PRESENCE_KEYS : null;
  }

  /**
   * Tracks `payload` for the channel under its key. A channel already tracked gets a new meta
   * that replaces the old one, as Phoenix's update does: the diff leaves the old meta and joins
   * the new one (with `phx_ref_prev`).
   */
  track(channel: Channel, payload: Record<string, unknown>, json: string): TrackResult {
    const room = roomOf(channel);
    const keys = this.rooms.get(room);
    const { key } = channel.presence;
    const tracking = keys?.get(key);
    const previous = channel.presence.meta;
    const refused = previous ? null : this.refusal(room, key);
    if (refused !== null) return { refused };
    const meta: PresenceMeta = { ref: newRef(), prev: previous?.ref ?? null, payload, json };
    channel.presence.meta = meta;
    let byKey = keys;
    if (!byKey) this.rooms.set(room, (byKey = new Map()));
    let channels = tracking;
    if (!channels) byKey.set(key, (channels = new Set()));
    channels.add(channel);
    return { diff: { joins: group(key, meta), leaves: previous ? group(key, previous) : {} } };
  }

  /** Removes the channel's meta; the diff to send, or null when it tracked nothing. */
  untrack(channel: Channel): PresenceDiff | null {
    const meta = channel.presence.meta;
    if (!meta) return null;
    channel.presence.meta = null;
    const room = roomOf(channel);
    const keys = this.rooms.get(room);
    const channels = keys?.get(channel.presence.key);
    channels?.delete(channel);
    if (channels?.size === 0) keys!.delete(channel.presence.key);
    if (keys?.size === 0) this.rooms.delete(room);
    return { joins: {}, leaves: group(channel.presence.key, meta) };
  }
}
