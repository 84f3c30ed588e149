/**
 * How the broadcast batches thin out poses while the server falls behind. The batch window's
 * timer (batches.ts) is due every BATCH_WINDOW_MS; how late it fires is how far the event loop
 * is behind. Past {@link THIN_FAR_LATE_MS} of lateness (averaged over windows) a member is sent
 * the batches of topics far from it (see Nearness in wire.ts) only every {@link THIN_EVERY}th
 * window; past {@link THIN_NEAR_LATE_MS} the near ones too. It is then sent the newest pose of
 * each sender since it was last sent, so a thinned member hears each walker less often, never
 * loses one; the writes the server saves are what lets it catch up. Stored messages (the world's blocks) and postgres_changes
 * (chat) never travel in batches, so they are never thinned.
 */
import type { Nearness } from './wire.js';

/** Average lateness of the window timer (ms) past which far topics' batches are thinned. */
export const THIN_FAR_LATE_MS = 25;
/** Average lateness (ms) past which near topics' batches are thinned too. */
export const THIN_NEAR_LATE_MS = 100;
/** While thinned, one window in this many is sent. */
export const THIN_EVERY = 4;
/** Weight of the newest window in the average lateness. */
const LATE_WEIGHT = 0.2;

/** The thinning state of one set of batches; see the module comment. */
export class Thinning {
  private lateMs = 0;
  private window = 0;

  /** Records a window whose timer fired `lateMs` after it was due. */
  windowEnded(lateMs: number): void {
    this.lateMs += (Math.max(0, lateMs) - this.lateMs) * LATE_WEIGHT;
    this.window++;
  }

  /** The average lateness so far, ms. */
  late(): number {
    return this.lateMs;
  }

  /** Whether members to which a topic is `kind` are thinned now. */
  thinned(kind: Nearness): boolean {
    return this.lateMs >= (kind === 'near' ? THIN_NEAR_LATE_MS : THIN_FAR_LATE_MS);
  }

  /** Whether this window sends thinned members what was kept for them (one window in THIN_EVERY). */
  keptWindow(): boolean {
    return this.window % THIN_EVERY === 0;
  }
}
