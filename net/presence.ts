/**
 * Presence: the record of who is online. The local row is upserted at start, every 5 s and
 * whenever the local player enters another region. Other players' rows are followed for the
 * 3x3 regions around the local player only (the generated `game_players.region` column,
 * supabase/migrations/20250401000100_player_regions.sql): loaded, then followed live with one
 * postgres_changes filter, both renewed as the player crosses into another region. A player
 * whose heartbeat is older than 30 s is dropped. The players known here are the only ones whose
 * live poses are believed (net/peers.ts).
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../components/network.js';
import { PRESENCE_HEARTBEAT_MS, PRESENCE_STALE_MS } from './constants.js';
import { createPeers, type Peers } from './peers.js';
import { everyPeriod } from './schedule.js';
import { interestCentre, regionKeysAround, type Region } from './regions.js';
import { localPlayerToRow, playerRowToEvent, type LocalPlayerState, type PlayerRow } from './rows.js';

/** What presence needs from its surroundings. */
export interface PresenceOptions {
  playerId: string;
  readLocal(): LocalPlayerState;
  emit(event: NetEvent): void;
  /** The clock, in ms since the epoch. */
  now(): number;
  /** How many hits on the local player have been heard so far (a count that only grows). */
  hitsHeard(): number;
  onStatus?(status: string): void;
}

/** The presence side of the network session. */
export interface Presence {
  /** The players with fresh presence around the local player, and their last known positions. */
  peers: Peers;
  /** Upserts the local row now; the answer's health and level are emitted as `recorded`. */
  heartbeat(): Promise<void>;
  /** Sends a heartbeat when the last one left at least `ms` ago and none is under way. */
  heartbeatIfOlder(ms: number): void;
  /**
   * Called every step with the local position: on entering another region (and the first time)
   * it sends a heartbeat, follows the rows of the new 3x3 regions and loads them.
   */
  follow(x: number, y: number): void;
  /** Loads the players of the 3x3 regions seen within the last 30 s, replacing the known set. */
  load(): Promise<void>;
  /** Ids of remote players with a fresh heartbeat. */
  online(): string[];
  /** Stops the heartbeat and deletes the local row. */
  leave(): Promise<void>;
}

/** Starts the heartbeat and the staleness sweep; rows are followed from the first `follow`. */
export function createPresence(db: SupabaseClient, options: PresenceOptions): Presence {
  const { playerId, emit, now } = options;
  const peers = createPeers();
  /** The region keys followed, own region first; empty before the first `follow`. */
  let regions: string[] = [];
  /** The region whose 3x3 surroundings are followed (see interestCentre), or null before the first follow. */
  let centre: Region | null = null;
  let channel: RealtimeChannel | null = null;
  /** Each subscription gets its own topic: a channel still leaving must not be reused. */
  let generation = 0;

  const seen = (row: PlayerRow) => {
    const stamp = row.last_seen ? Date.parse(row.last_seen) : NaN;
    // A row's own clock may differ from ours; never date a fresh event in the future or past its arrival.
    peers.seen(row.player_id, row.x, row.y, Number.isFinite(stamp) ? Math.min(stamp, now()) : now());
    emit(playerRowToEvent(row));
  };

  function drop(id: string) {
    if (peers.forget(id)) emit({ kind: 'playerLeft', id });
  }

  function onRow(change: { eventType: string; new: unknown; old: unknown }) {
    if (change.eventType === 'DELETE') {
      const id = (change.old as Partial<PlayerRow>).player_id;
      if (id && id !== playerId) drop(id);
      return;
    }
    const row = change.new as PlayerRow;
    if (row.player_id !== playerId) seen({ ...row, last_seen: undefined });
  }

  /**
   * Follows inserts and updates in the 3x3 regions, and every delete (hosted Realtime cannot
   * filter deletes); once subscribed, loads the players already there.
   */
  function subscribe(keys: string[]) {
    const old = channel;
    const filter = `region=in.(${keys.join(',')})`;
    const table = { schema: 'public', table: 'game_players' } as const;
    const next = db
      .channel(`game_players:${++generation}`)
      .on('postgres_changes', { event: 'INSERT', ...table, filter }, onRow)
      .on('postgres_changes', { event: 'UPDATE', ...table, filter }, onRow)
      .on('postgres_changes', { event: 'DELETE', ...table }, onRow);
    channel = next.subscribe((status) => {
      // Rows written before the subscription took effect are read once it has.
      if (status === 'SUBSCRIBED' && channel === next) void load();
      options.onStatus?.(status);
    });
    if (old) void db.removeChannel(old);
  }

  function sweep() {
    for (const id of peers.staleBefore(now() - PRESENCE_STALE_MS)) drop(id);
  }

  let lastBeat = -Infinity;
  /** The upsert under way, and the one waiting for it: one at a time, so rows arrive in order. */
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;

  /**
   * Upserts the local row, after the one under way if there is one (at most one waits). Two
   * upserts in flight at once may commit in either order, and the server's movement budget would
   * then judge the newer position against an older one.
   */
  function heartbeat(): Promise<void> {
    if (!running) {
      running = beat().finally(() => {
        running = null;
      });
      return running;
    }
    const next = () => {
      queued = null;
      return heartbeat();
    };
    queued ??= running.then(next, next);
    return queued;
  }

  async function beat() {
    const row = localPlayerToRow(options.readLocal(), new Date(now()));
    const hitsBefore = options.hitsHeard();
    lastBeat = now();
    // The server keeps its own health and level in the row; the answer tells us what they are.
    // Asked for as a list, which the server answers in one round trip to the database.
    const { data, error } = await db.from('game_players').upsert(row, { onConflict: 'player_id' }).select('health, level');
    if (error) {
      console.error('presence heartbeat failed:', error.code, error.message);
      return;
    }
    const stored = (data as Pick<PlayerRow, 'health' | 'level'>[])[0]!;
    emit({ kind: 'recorded', health: options.hitsHeard() === hitsBefore ? stored.health : null, level: stored.level });
  }

  async function load() {
    if (regions.length === 0) return;
    const since = new Date(now() - PRESENCE_STALE_MS).toISOString();
    const { data, error } = await db
      .from('game_players')
      .select('*')
      .in('region', regions)
      .neq('player_id', playerId)
      .gte('last_seen', since);
    if (error) {
      console.error('loading players failed:', error.code, error.message);
      return;
    }
    const rows = data as PlayerRow[];
    const present = new Set(rows.map((row) => row.player_id));
    for (const id of peers.ids()) if (!present.has(id)) drop(id);
    for (const row of rows) seen(row);
  }

  const timer = everyPeriod(PRESENCE_HEARTBEAT_MS, () => {
    void heartbeat();
    sweep();
  });

  return {
    peers,
    heartbeat,
    heartbeatIfOlder(ms) {
      if (!running && now() - lastBeat >= ms) void heartbeat();
    },
    follow(x, y) {
      const next = interestCentre(centre, x, y);
      if (next === centre) return;
      centre = next;
      const keys = regionKeysAround(centre);
      const first = regions.length === 0;
      regions = keys;
      subscribe(keys);
      // The first heartbeat and load are the session's start; later ones follow the player.
      if (!first) void heartbeat().then(load);
    },
    load,
    online: () => peers.ids(),
    leave: async () => {
      timer.stop();
      if (channel) await db.removeChannel(channel);
      const { error } = await db.from('game_players').delete().eq('player_id', playerId);
      if (error) console.error('leaving failed:', error.code, error.message);
    },
  };
}
