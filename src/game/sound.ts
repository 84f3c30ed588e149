/** The engine's sound effects in the page: played once per frame, unlocked by the player's first gesture. */
import type { GameWorld } from '../../components/world.js';
import type { SoundEffects } from '../audio/effects.js';
import { listen, type Unlisten } from './listen.js';

/** Plays, and takes out of the world, the sound effects the engine queued since the last frame. */
export function playQueuedSounds(world: GameWorld, sounds: SoundEffects | undefined): void {
  for (const sound of world.sounds.splice(0)) sounds?.play(sound);
}

/** Unlocks `sounds` at any tap or click on the page (browsers allow audio only after a gesture); returns the removal. */
export function unlockSoundOnTap(sounds: SoundEffects | undefined): Unlisten {
  return listen(window, 'pointerdown', () => sounds?.unlock(), true);
}
