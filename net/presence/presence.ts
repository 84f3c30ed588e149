/**
 * Presence: the record of who is online. The local row is upserted at start, every 5 s and
 * whenever the interest centre moves to another region. Other players' rows are followed for the
 * 3x3 regions around the interest centre only (the generated `game_players.region` column,
 * supabase/migrations/20250401000100_player_regions.sql): loaded, then followed live with one
 * postgres_changes filter, both renewed as the centre moves. A player whose heartbeat is older
 * than 30 s is dropped. The players known here are the only ones whose live poses are believed
 * (peers.ts).
 *
 * Where its changes come from: other clients write their own `game_players` rows (their
 * heartbeats, and the delete when they leave); this client reads the rows of its 3x3 regions by
 * REST (`region=in.(...)`, when the area changes, after a heartbeat and after a reconnect) and
 * hears them as postgres_changes on `game_players` that the server's Realtime sends from the
 * database's changes (inserts and updates filtered by region, every delete). The area comes from
 * the session's one interest (net/interest/interest.ts), which calls {@link Presence.follow}.
 *
 * Beside it: the heartbeat (heartbeat.ts), the rows followed (rows.ts) and the players believed
 * (peers.ts); here they are moved with the interest and run on a schedule.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../../components/network.js';
import { PRESENCE_HEARTBEAT_MS } from '../../protocol/rules.js';
import type { InterestArea } from '../interest/interest.js';
import { createHeartbeat } from './heartbeat.js';
import type { Peers } from './peers.js';
import { createPresenceRows } from './rows.js';
import { everyPeriod } from '../schedule.js';
import type { LocalPlayerState } from '../rows.js';

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
  /** Upserts the local row now; the answer's health and level are emitted as `recorded`. Resolves to whether it was stored. */
  heartbeat(): Promise<boolean>;
  /** Sends a heartbeat when the last one left at least `ms` ago and none is under way. */
  heartbeatIfOlder(ms: number): void;
  /**
   * Called by the interest each time its centre moves (and the first time): follows the rows of
   * the new 3x3 regions and, after the first, sends a heartbeat and loads them.
   */
  follow(area: InterestArea): void;
  /** Loads the players of the 3x3 regions seen within the last 30 s, replacing the known set; resolves to whether they were read. */
  load(): Promise<boolean>;
  /** Ids of remote players with a fresh heartbeat. */
  online(): string[];
  /** Stops the heartbeat and deletes the local row. */
  leave(): Promise<void>;
}

/** Starts the heartbeat and the staleness sweep; rows are followed from the first `follow`. */
export function createPresence(db: SupabaseClient, options: PresenceOptions): Presence {
  const { playerId } = options;
  const rows = createPresenceRows(db, options);
  const heartbeat = createHeartbeat(db, options);

  const timer = everyPeriod(PRESENCE_HEARTBEAT_MS, () => {
    void heartbeat.beat();
    rows.sweep();
  });

  return {
    peers: rows.peers,
    heartbeat: heartbeat.beat,
    heartbeatIfOlder: heartbeat.beatIfOlder,
    follow(area) {
      rows.follow(area.keys);
      // The first heartbeat and load are the session's start; later ones follow the player.
      if (!area.first) void heartbeat.beat().then(() => rows.load());
    },
    load: rows.load,
    online: () => rows.peers.ids(),
    leave: async () => {
      timer.stop();
      await rows.close();
      const { error } = await db.from('game_players').delete().eq('player_id', playerId);
      if (error) console.error('leaving failed:', error.code, error.message);
    },
  };
}
