/**
 * Other players' presence rows around the local player: those of the 3x3 regions followed live
 * with one postgres_changes filter (renewed as the regions change) and loaded, and those older
 * than PRESENCE_STALE_MS dropped. The players known here are the only ones whose live poses are
 * believed (net/presence/peers.ts).
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../../components/network.js';
import { PRESENCE_STALE_MS } from '../../protocol/rules.js';
import { createPeers, type Peers } from './peers.js';
import { playerRowToEvent, type PlayerRow } from '../rows.js';

/** What following the rows needs. */
export interface PresenceRowsOptions {
  playerId: string;
  emit(event: NetEvent): void;
  /** The clock, in ms since the epoch. */
  now(): number;
  onStatus?(status: string): void;
}

/** Other players' rows, followed region by region. */
export interface PresenceRows {
  /** The players with fresh presence, and their last known positions. */
  peers: Peers;
  /**
   * Follows inserts and updates in regions `keys` (leaving the regions followed before), and
   * every delete (hosted Realtime cannot filter deletes); once subscribed, loads the players
   * already there.
   */
  follow(keys: string[]): void;
  /** Loads the players of the regions followed seen within PRESENCE_STALE_MS, replacing the known set; resolves to whether they were read. */
  load(): Promise<boolean>;
  /** Drops the players whose heartbeat is older than PRESENCE_STALE_MS. */
  sweep(): void;
  /** Leaves the live channel. */
  close(): Promise<void>;
}

/** Follows nothing until the first `follow`. */
export function createPresenceRows(db: SupabaseClient, options: PresenceRowsOptions): PresenceRows {
  const { playerId, emit, now } = options;
  const peers = createPeers();
  /** The region keys followed, own region first; empty before the first `follow`. */
  let regions: string[] = [];
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

  function follow(keys: string[]) {
    regions = keys;
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

  async function load(): Promise<boolean> {
    if (regions.length === 0) return true;
    const since = new Date(now() - PRESENCE_STALE_MS).toISOString();
    const { data, error } = await db
      .from('game_players')
      .select('*')
      .in('region', regions)
      .neq('player_id', playerId)
      .gte('last_seen', since);
    if (error) {
      console.error('loading players failed:', error.code, error.message);
      return false;
    }
    const rows = data as PlayerRow[];
    const present = new Set(rows.map((row) => row.player_id));
    for (const id of peers.ids()) if (!present.has(id)) drop(id);
    for (const row of rows) seen(row);
    return true;
  }

  return {
    peers,
    follow,
    load,
    sweep() {
      for (const id of peers.staleBefore(now() - PRESENCE_STALE_MS)) drop(id);
    },
    close: async () => {
      if (channel) await db.removeChannel(channel);
    },
  };
}
