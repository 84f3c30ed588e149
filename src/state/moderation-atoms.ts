/**
 * The player's moderation state: the wallets it muted, the open name menu, and the moderation
 * actions the multiplayer code registers while the game runs.
 */
import { atom } from 'jotai';
import type { Moderation, Muted } from '../../net/moderation.js';

/** Why the server refused this wallet's sign-in when it is banned (the reason and the end), else null. */
export const banRefusalAtom = atom<string | null>(null);

/** The wallets the player muted, oldest first. */
export const mutedAtom = atom<readonly Muted[]>([]);

/** The wallets of {@link mutedAtom}, for filtering. */
export const mutedWalletsAtom = atom((get) => new Set(get(mutedAtom).map((muted) => muted.wallet)));

/** The player whose name menu is open, and where it opens (viewport pixels); null when closed. */
export interface NameMenuTarget {
  wallet: string;
  name: string;
  x: number;
  y: number;
}

/** The open name menu (Mute / Unmute, Report), or null. */
export const nameMenuAtom = atom<NameMenuTarget | null>(null);

let current: Moderation | null = null;

/** Registers the moderation actions; returns a function that unregisters them again. */
export function registerModeration(moderation: Moderation): () => void {
  current = moderation;
  return () => {
    if (current === moderation) current = null;
  };
}

/** The registered moderation actions, or null outside the game. */
export function getModeration(): Moderation | null {
  return current;
}
