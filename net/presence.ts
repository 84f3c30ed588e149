/**
 * Presence: the record of who is online. The local row is upserted at start and every 5 s;
 * other players' rows are loaded at start and followed live; a player whose heartbeat is
 * older than 30 s is dropped.
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../components/network.js';
import { PRESENCE_HEARTBEAT_MS, PRESENCE_STALE_MS } from './constants.js';
import { localPlayerToRow, playerRowToEvent, type LocalPlayerState, type PlayerRow } from './rows.js';

/** What presence needs from its surroundings. */
export interface PresenceOptions {
  playerId: string;
  readLocal(): LocalPlayerState;
  emit(event: NetEvent): void;
  /** The clock, in ms since the epoch. */
  now(): number;
  onStatus?(status: string): void;
}

/** The presence side of the network session. */
export interface Presence {
  /** Upserts the local row now. */
  heartbeat(): Promise<void>;
  /** Loads the players seen within the last 30 s, replacing the known set. */
  load(): Promise<void>;
  /** Ids of remote players with a fresh heartbeat. */
  online(): string[];
  /** Stops the heartbeat and deletes the local row. */
  leave(): Promise<void>;
}

/** Starts the heartbeat, the live subscription and the staleness sweep. */
export function createPresence(db: SupabaseClient, options: PresenceOptions): Presence {
  const { playerId, emit, now } = options;
  /** Last heartbeat time per remote player, in ms. */
  const lastSeen = new Map<string, number>();

  const seen = (row: PlayerRow) => {
    const stamp = row.last_seen ? Date.parse(row.last_seen) : NaN;
    // A row's own clock may differ from ours; never date a fresh event in the future or past its arrival.
    lastSeen.set(row.player_id, Number.isFinite(stamp) ? Math.min(stamp, now()) : now());
    emit(playerRowToEvent(row));
  };

  const channel: RealtimeChannel = db
    .channel('game_players')
    .on(
      'postgres_changes',
      { event: '*', schema: 'public', table: 'game_players', filter: `player_id=neq.${playerId}` },
      (change) => {
        if (change.eventType === 'DELETE') {
          const id = (change.old as Partial<PlayerRow>).player_id;
          if (id && id !== playerId) drop(id);
          return;
        }
        const row = change.new as PlayerRow;
        if (row.player_id !== playerId) seen({ ...row, last_seen: undefined });
      },
    )
    .subscribe((status) => options.onStatus?.(status));

  function drop(id: string) {
    if (lastSeen.delete(id)) emit({ kind: 'playerLeft', id });
  }

  function sweep() {
    const cutoff = now() - PRESENCE_STALE_MS;
    for (const [id, at] of lastSeen) if (at < cutoff) drop(id);
  }

  async function heartbeat() {
    const row = localPlayerToRow(options.readLocal(), new Date(now()));
    const { error } = await db.from('game_players').upsert(row, { onConflict: 'player_id' });
    if (error) console.error('presence heartbeat failed:', error.code, error.message);
  }

  async function load() {
    const since = new Date(now() - PRESENCE_STALE_MS).toISOString();
    const { data, error } = await db.from('game_players').select('*').neq('player_id', playerId).gte('last_seen', since);
    if (error) {
      console.error('loading players failed:', error.code, error.message);
      return;
    }
    const rows = data as PlayerRow[];
    const present = new Set(rows.map((row) => row.player_id));
    for (const id of [...lastSeen.keys()]) if (!present.has(id)) drop(id);
    for (const row of rows) seen(row);
  }

  const timer = setInterval(() => {
    void heartbeat();
    sweep();
  }, PRESENCE_HEARTBEAT_MS);

  return {
    heartbeat,
    load,
    online: () => [...lastSeen.keys()],
    leave: async () => {
      clearInterval(timer);
      await db.removeChannel(channel);
      const { error } = await db.from('game_players').delete().eq('player_id', playerId);
      if (error) console.error('leaving failed:', error.code, error.message);
    },
  };
}
