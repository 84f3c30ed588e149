/**
 * Claim reads under way and the live messages heard meanwhile. A read replaces what it covers
 * with what the database held when it ran, so a change heard while it runs is applied again
 * after it (each change sets a claim or a trust whole, so the latest wins). At most
 * MAX_HELD_CLAIM_MESSAGES are held; past it the reads are made again.
 */
import type { ClaimChanges } from '../../protocol/claim-changes.js';

/** Live messages held while a read runs; past it the reads are made again. */
export const MAX_HELD_CLAIM_MESSAGES = 256;

/** The reads under way and what they hold. */
export interface HeldClaimChanges {
  /** A live message heard: held when a read runs. */
  hear(changes: ClaimChanges): void;
  /**
   * Runs `read` as one of the reads under way; the last to end forgets the held messages, and
   * calls `lost` when some were not held.
   */
  reading(read: () => Promise<void>): Promise<void>;
  /** The messages held so far, oldest first. */
  held(): readonly ClaimChanges[];
}

/** No read under way yet; `lost` is called when held messages overflowed (the reads are to be made again). */
export function createHeldClaimChanges(lost: () => void): HeldClaimChanges {
  let reads = 0;
  let held: ClaimChanges[] = [];
  let overflowed = false;
  return {
    hear(changes) {
      if (reads === 0) return;
      if (held.length < MAX_HELD_CLAIM_MESSAGES) held.push(changes);
      else overflowed = true;
    },
    async reading(read) {
      reads++;
      try {
        await read();
      } finally {
        reads--;
        if (reads === 0) {
          const wasLost = overflowed;
          held = [];
          overflowed = false;
          if (wasLost) lost();
        }
      }
    },
    held: () => held,
  };
}
