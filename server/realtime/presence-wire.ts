/** Presence as it travels: to clients in presence_state and presence_diff, and between the nodes of a cluster. */

/** Presences grouped by key as Phoenix sends them: `{key: {metas: [{...payload, phx_ref}]}}`. */
export type PresenceGroups = Record<string, { metas: Record<string, unknown>[] }>;

/** The payload of a `presence_diff` message. */
export interface PresenceDiff {
  joins: PresenceGroups;
  leaves: PresenceGroups;
}

/** A tracked meta as it travels (the client's payload with `phx_ref`, maybe `phx_ref_prev`). */
export type WireMeta = Record<string, unknown>;

/** The presences of one room held by one node, as they cross the bus: the room's topic, privacy and groups. */
export interface RoomPresences {
  topic: string;
  private: boolean;
  groups: PresenceGroups;
}

/** The room of a topic's presence: public and private channels of one topic are apart, as on hosted. */
export function roomName(topic: string, isPrivate: boolean): string {
  return `${isPrivate ? 'private' : 'public'}\0${topic}`;
}

/** The topic and privacy of a room named by {@link roomName}. */
export function roomParts(room: string): { topic: string; private: boolean } {
  const split = room.indexOf('\0');
  return { topic: room.slice(split + 1), private: room.slice(0, split) === 'private' };
}

/** Whether a diff tells anything. */
export function isEmptyDiff(diff: PresenceDiff): boolean {
  return Object.keys(diff.joins).length === 0 && Object.keys(diff.leaves).length === 0;
}
