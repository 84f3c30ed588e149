/**
 * The local player's blocks that others removed in the last 30 minutes within view, read from
 * the server's edit history (game_block_edits). Only tiles that are empty now count: restoring
 * puts blocks back into empty tiles only, as ordinary placements.
 *
 * The history is read when it may have changed, not on a short timer: at the start, when a block
 * of the player's is removed (heard live), after a reconnect, and at least every
 * RESTORE_REFRESH_MS. It is read for the whole world (the player's own removed blocks, by the
 * index on the former owner), so walking costs no request: which of them lie in view, and in empty
 * tiles, is worked out here every RESTORE_CHECK_MS. Reading the view's history every few
 * seconds would cost the server a query per player per period, a walking player's far more.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../components/network.js';
import { RESTORE_CHECK_MS, RESTORE_REFRESH_MS, RESTORE_WINDOW_MS, VIEW_HALF_HEIGHT_TILES, VIEW_HALF_WIDTH_TILES } from './constants.js';
import type { SupportWorld } from '../components/support.js';

/** Most history rows read per look-up: the newest removals win when there are more. */
const HISTORY_ROWS = 600;

/** A removed block of the local player's: where it stood and what it was. */
export interface Removal {
  x: number;
  y: number;
  blockType: string;
}

/** What the look-up needs. */
export interface RestorableOptions {
  playerId: string;
  /** The local player's tile. */
  tile(): { x: number; y: number };
  world: Pick<SupportWorld, 'hasBlock'>;
  emit(event: NetEvent): void;
  now?(): number;
}

/** Reads the local player's blocks others removed in the window, newest first, one per tile. */
export async function readRemovals(db: SupabaseClient, playerId: string, now: number): Promise<Removal[]> {
  const since = new Date(now - RESTORE_WINDOW_MS).toISOString();
  const { data, error } = await db
    .from('game_block_edits')
    .select('x,y,before_type')
    .eq('before_owner', playerId)
    .is('after_type', null)
    .neq('actor_id', playerId)
    .gte('created_at', since)
    .order('created_at', { ascending: false })
    .limit(HISTORY_ROWS);
  if (error) throw error;
  const seen = new Set<string>();
  const removals: Removal[] = [];
  for (const row of data as { x: number; y: number; before_type: string }[]) {
    const key = `${row.x},${row.y}`;
    if (seen.has(key)) continue;
    seen.add(key);
    removals.push({ x: row.x, y: row.y, blockType: row.before_type });
  }
  return removals;
}

/** The removals in the view around `tile` whose tiles are empty now. */
export function restorableInView(removals: readonly Removal[], tile: { x: number; y: number }, world: Pick<SupportWorld, 'hasBlock'>): Removal[] {
  return removals.filter(
    ({ x, y }) => Math.abs(x - tile.x) <= VIEW_HALF_WIDTH_TILES && Math.abs(y - tile.y) <= VIEW_HALF_HEIGHT_TILES && !world.hasBlock(x, y),
  );
}

/** Whether the removals need reading at `now`: never read, marked stale, or RESTORE_REFRESH_MS since `lastRead`. */
export function readDue(lastRead: number | null, now: number, stale: boolean): boolean {
  return lastRead === null || stale || now - lastRead >= RESTORE_REFRESH_MS;
}

/** The restorable blocks, followed; see the module comment. */
export interface RestorableFollower {
  /** A block of the local player's was removed, or the connection came back: read again at the next check. */
  markStale(): void;
  stop(): void;
}

/** Every RESTORE_CHECK_MS: reads the removals if {@link readDue}, and emits those restorable now as a `restorable` event. */
export function followRestorable(db: SupabaseClient, options: RestorableOptions): RestorableFollower {
  const now = options.now ?? Date.now;
  let removals: Removal[] = [];
  let lastRead: number | null = null;
  let stale = false;
  let reading = false;
  const check = async () => {
    if (!reading && readDue(lastRead, now(), stale)) {
      reading = true;
      stale = false;
      lastRead = now();
      try {
        removals = await readRemovals(db, options.playerId, lastRead);
      } catch (error) {
        console.error('reading the edit history failed:', error);
      } finally {
        reading = false;
      }
    }
    options.emit({ kind: 'restorable', blocks: restorableInView(removals, options.tile(), options.world) });
  };
  void check();
  const timer = setInterval(() => void check(), RESTORE_CHECK_MS);
  return {
    markStale: () => {
      stale = true;
    },
    stop: () => clearInterval(timer),
  };
}
