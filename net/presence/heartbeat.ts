/**
 * The local player's presence heartbeat: its game_players row upserted, one at a time so rows
 * arrive in order, and the server's answer (health and level) handed to the engine.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../../components/network.js';
import { localPlayerToRow, type LocalPlayerState, type PlayerRow } from '../rows.js';

/** What the heartbeat needs. */
export interface HeartbeatOptions {
  readLocal(): LocalPlayerState;
  emit(event: NetEvent): void;
  /** The clock, in ms since the epoch. */
  now(): number;
  /** How many hits on the local player have been heard so far (a count that only grows). */
  hitsHeard(): number;
}

/** The local row's heartbeat. */
export interface Heartbeat {
  /** Upserts the local row now; the answer's health and level are emitted as `recorded`. Resolves to whether it was stored. */
  beat(): Promise<boolean>;
  /** Sends a heartbeat when the last one left at least `ms` ago and none is under way. */
  beatIfOlder(ms: number): void;
}

/** A heartbeat that has not beaten yet. */
export function createHeartbeat(db: SupabaseClient, options: HeartbeatOptions): Heartbeat {
  const { emit, now } = options;
  let lastBeat = -Infinity;
  /** The upsert under way, and the one waiting for it: one at a time, so rows arrive in order. */
  let running: Promise<boolean> | null = null;
  let queued: Promise<boolean> | null = null;

  /**
   * Upserts the local row, after the one under way if there is one (at most one waits). Two
   * upserts in flight at once may commit in either order, and the server's movement budget would
   * then judge the newer position against an older one.
   */
  function heartbeat(): Promise<boolean> {
    if (!running) {
      running = upsert().finally(() => {
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

  async function upsert(): Promise<boolean> {
    const row = localPlayerToRow(options.readLocal(), new Date(now()));
    const hitsBefore = options.hitsHeard();
    lastBeat = now();
    // The server keeps its own health and level in the row; the answer tells us what they are.
    // Asked for as a list, which the server answers in one round trip to the database.
    const { data, error } = await db.from('game_players').upsert(row, { onConflict: 'player_id' }).select('health, level');
    if (error) {
      console.error('presence heartbeat failed:', error.code, error.message);
      return false;
    }
    const stored = (data as Pick<PlayerRow, 'health' | 'level'>[])[0]!;
    emit({ kind: 'recorded', health: options.hitsHeard() === hitsBefore ? stored.health : null, level: stored.level });
    return true;
  }

  return {
    beat: heartbeat,
    beatIfOlder(ms) {
      if (!running && now() - lastBeat >= ms) void heartbeat();
    },
  };
}
