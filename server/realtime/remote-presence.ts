import { isEmptyDiff, roomName, type PresenceDiff, type PresenceGroups, type RoomPresences, type WireMeta } from './presence-wire.js';

/** One room of one node: key -> phx_ref -> meta. */
type Room = Map<string, Map<string, WireMeta>>;

/** A diff that tells nothing yet. */
function emptyDiff(): PresenceDiff {
  return { joins: {}, leaves: {} };
}

function addMeta(groups: PresenceGroups, key: string, meta: WireMeta): void {
  (groups[key] ??= { metas: [] }).metas.push(meta);
}

/** The rooms of `groups` lists, keyed by room name. */
function roomsOf(list: readonly RoomPresences[]): Map<string, Room> {
  const rooms = new Map<string, Room>();
  for (const { topic, private: isPrivate, groups } of list) {
    const room: Room = new Map();
    for (const [key, { metas }] of Object.entries(groups)) room.set(key, new Map(metas.map((meta) => [String(meta.phx_ref), meta])));
    if (room.size > 0) rooms.set(roomName(topic, isPrivate), room);
  }
  return rooms;
}

/** The diff from `before` to `after` of one room: metas gone leave, metas new join (by phx_ref). */
function roomDiff(before: Room | undefined, after: Room | undefined): PresenceDiff {
  const diff = emptyDiff();
  for (const [key, metas] of before ?? []) for (const [ref, meta] of metas) if (!after?.get(key)?.has(ref)) addMeta(diff.leaves, key, meta);
  for (const [key, metas] of after ?? []) for (const [ref, meta] of metas) if (!before?.get(key)?.has(ref)) addMeta(diff.joins, key, meta);
  return diff;
}

/**
 * The presences tracked on the other nodes of the cluster, per node, as their diffs and states
 * told them over the bus. Each change returns the diff the local members of a room are to be
 * sent: a meta leaves only if it was held, so a presence never leaves twice (a diff and the
 * node's going down, a state that repeats what a diff told).
 */
export class RemotePresences {
  /** node -> room -> key -> phx_ref -> meta. */
  private readonly nodes = new Map<string, Map<string, Room>>();

  /** Adds the metas the other nodes hold in `room` to `groups`. */
  addTo(groups: PresenceGroups, room: string): void {
    for (const rooms of this.nodes.values()) {
      for (const [key, metas] of rooms.get(room) ?? []) for (const meta of metas.values()) addMeta(groups, key, meta);
    }
  }

  /** The keys the other nodes track in `room`. */
  keys(room: string): Set<string> {
    const keys = new Set<string>();
    for (const rooms of this.nodes.values()) for (const key of rooms.get(room)?.keys() ?? []) keys.add(key);
    return keys;
  }

  /** How many metas the other nodes track under `key` in `room`. */
  metaCount(room: string, key: string): number {
    let count = 0;
    for (const rooms of this.nodes.values()) count += rooms.get(room)?.get(key)?.size ?? 0;
    return count;
  }

  /** Applies a diff `node` sent for `room`; returns what changed here (leaves of metas not held are left out). */
  apply(node: string, room: string, diff: PresenceDiff): PresenceDiff {
    let rooms = this.nodes.get(node);
    if (!rooms) this.nodes.set(node, (rooms = new Map()));
    const before = rooms.get(room);
    const after: Room = new Map([...(before ?? [])].map(([key, metas]) => [key, new Map(metas)]));
    for (const [key, { metas }] of Object.entries(diff.leaves)) for (const meta of metas) after.get(key)?.delete(String(meta.phx_ref));
    for (const [key, { metas }] of Object.entries(diff.joins)) {
      let held = after.get(key);
      if (!held) after.set(key, (held = new Map()));
      for (const meta of metas) held.set(String(meta.phx_ref), meta);
    }
    for (const [key, metas] of after) if (metas.size === 0) after.delete(key);
    if (after.size > 0) rooms.set(room, after);
    else rooms.delete(room);
    if (rooms.size === 0) this.nodes.delete(node);
    return roomDiff(before, after);
  }

  /** Replaces everything `node` holds by its state; returns the diff of each room that changed. */
  replace(node: string, state: readonly RoomPresences[]): Map<string, PresenceDiff> {
    const before = this.nodes.get(node) ?? new Map<string, Room>();
    const after = roomsOf(state);
    if (after.size > 0) this.nodes.set(node, after);
    else this.nodes.delete(node);
    const diffs = new Map<string, PresenceDiff>();
    for (const room of new Set([...before.keys(), ...after.keys()])) {
      const diff = roomDiff(before.get(room), after.get(room));
      if (!isEmptyDiff(diff)) diffs.set(room, diff);
    }
    return diffs;
  }

  /** Forgets everything `node` held (it is down); returns the leaves of each room. */
  drop(node: string): Map<string, PresenceDiff> {
    return this.replace(node, []);
  }
}
