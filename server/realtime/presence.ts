import { randomBytes } from 'node:crypto';
import type { Channel, PresenceMeta } from './channel.js';
import { MAX_PRESENCE_KEYS_PER_TOPIC, MAX_PRESENCE_METAS_PER_KEY, TOO_MANY_PRESENCE_KEYS, TOO_MANY_PRESENCE_METAS } from './limits.js';

/** Presences grouped by key as Phoenix sends them: `{key: {metas: [{...payload, phx_ref}]}}`. */
export type PresenceGroups = Record<string, { metas: Record<string, unknown>[] }>;

/** The payload of a `presence_diff` message. */
export interface PresenceDiff {
  joins: PresenceGroups;
  leaves: PresenceGroups;
}

/** The outcome of a track: the diff to send to the topic's members, or the reason it was refused. */
export type TrackResult = { diff: PresenceDiff } | { refused: string };

/** The room a channel's presence lives in: public and private channels of one topic are apart, as on hosted. */
function roomOf(channel: Channel): string {
  return `${channel.private ? 'private' : 'public'}\0${channel.topic}`;
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
 * Who is tracked on which topic, as hosted Realtime's Phoenix presence keeps it: each channel
 * tracks at most one meta under its key, so the registry never holds more metas than there are
 * joined channels, and each topic at most {@link MAX_PRESENCE_KEYS_PER_TOPIC} keys of at most
 * {@link MAX_PRESENCE_METAS_PER_KEY} metas. A channel's meta is removed when it untracks, leaves
 * or its socket closes.
 */
export class PresenceRegistry {
  /** room -> key -> channels tracking under that key (their metas are `channel.presence.meta`). */
  private readonly rooms = new Map<string, Map<string, Set<Channel>>>();

  /** The `presence_state` payload for a channel's topic: every key with its metas. */
  state(channel: Channel): PresenceGroups {
    const groups: PresenceGroups = {};
    for (const [key, channels] of this.rooms.get(roomOf(channel)) ?? []) {
      groups[key] = { metas: [...channels].map((member) => wireMeta(member.presence.meta!)) };
    }
    return groups;
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
    if (!previous) {
      if (!tracking && (keys?.size ?? 0) >= MAX_PRESENCE_KEYS_PER_TOPIC) return { refused: TOO_MANY_PRESENCE_KEYS };
      if (tracking && tracking.size >= MAX_PRESENCE_METAS_PER_KEY) return { refused: TOO_MANY_PRESENCE_METAS };
    }
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
