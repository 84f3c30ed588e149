/** Per-wallet player name and appearance in localStorage (docs/game-rules.md §7). */
import { DEFAULT_APPEARANCE, type Appearance } from '../../components/appearance-types.js';

/** The localStorage key of a wallet's player name. */
export const usernameKey = (publicKey: string): string => `username_${publicKey}`;

/** The localStorage key of a wallet's appearance (JSON). */
export const characterKey = (publicKey: string): string => `character_${publicKey}`;

/** The stored name of `publicKey`, or null. */
export function loadUsername(publicKey: string): string | null {
  return localStorage.getItem(usernameKey(publicKey));
}

/** Stores the name of `publicKey`. */
export function storeUsername(publicKey: string, name: string): void {
  localStorage.setItem(usernameKey(publicKey), name);
}

/** The stored appearance of `publicKey` over the defaults; a broken entry is logged and ignored. */
export function loadAppearance(publicKey: string): Appearance {
  const raw = localStorage.getItem(characterKey(publicKey));
  if (!raw) return { ...DEFAULT_APPEARANCE };
  try {
    return { ...DEFAULT_APPEARANCE, ...(JSON.parse(raw) as Partial<Appearance>) };
  } catch (error) {
    console.error('Failed to load appearance', error);
    return { ...DEFAULT_APPEARANCE };
  }
}

/** Stores the appearance of `publicKey` as JSON. */
export function storeAppearance(publicKey: string, appearance: Appearance): void {
  localStorage.setItem(characterKey(publicKey), JSON.stringify(appearance));
}
