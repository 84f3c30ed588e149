/**
 * The shape of a sound effect the engine asks for, apart from the functions that make them
 * (components/sounds.ts), so the world can hold a queue of them without importing those.
 */

/** What made the sound. */
export type SoundKind = 'place' | 'break' | 'step' | 'swing' | 'hit' | 'hurt' | 'defeat' | 'chat' | 'voice';

/** How a block sounds when it is placed or broken. */
export type BlockFamily = 'stone' | 'wood' | 'earth' | 'metal' | 'gem' | 'glass';

/** One effect to play at `volume` (0..1, before the player's own volume setting). */
export interface SoundEvent {
  kind: SoundKind;
  /** The block's family for 'place' and 'break'; null for every other kind. */
  family: BlockFamily | null;
  volume: number;
}
