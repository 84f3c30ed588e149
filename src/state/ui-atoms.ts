/** Which screen and which game panels are open. */
import { atom } from 'jotai';

/** True once the player pressed ENTER WORLD; the route `/` then shows the game. */
export const enteredAtom = atom(false);

/** The inventory overlay (key I). */
export const inventoryOpenAtom = atom(false);

/** The character customisation overlay (key C). */
export const customiseOpenAtom = atom(false);

/** The LAND panel (key L): the claim budget, the player's claims and the claim tool. */
export const landOpenAtom = atom(false);

/** The minimap (key M). The network code polls minimap positions only while it is open. */
export const minimapOpenAtom = atom(false);

/** Whether the game uses the touch layout: a phone or tablet whose main pointer is a finger. Decided once at load. */
export const touchLayoutAtom = atom(typeof matchMedia === 'function' && matchMedia('(hover: none) and (pointer: coarse)').matches);

/** The chat panel in the touch layout (on a desktop it is always shown). */
export const chatOpenAtom = atom(false);

/** The voice panel in the touch layout (on a desktop it is always shown). */
export const voiceOpenAtom = atom(false);
