/** The input resource: what the player asked for since the last step, written by the DOM layer. */

/** Bits of `InputState.held`. */
export const KEY = Object.freeze({ up: 1, down: 2, left: 4, right: 8 });

/** A mouse click on a tile: left places, right removes. */
export interface TileClick {
  action: 'place' | 'remove';
  tileX: number;
  tileY: number;
}

/** Undo (Ctrl+Z) or redo (Ctrl+Shift+Z) of the player's own last block edit. */
export type HistoryMove = 'undo' | 'redo';

/** Pending input. `held` is a level; `swing`, `hotbar`, `clicks` and `edits` are consumed by the next step. */
export interface InputState {
  held: number;
  swing: boolean;
  /** Hotbar entry (0-7) chosen with keys 1-8 since the last step, or -1. */
  hotbar: number;
  clicks: TileClick[];
  /** Undo and redo requests, in the order they were made. */
  edits: HistoryMove[];
  /** The tile under the mouse, for the build highlight; null when the mouse is off the canvas. */
  hover: { tileX: number; tileY: number } | null;
}

/** No input. */
export function createInputState(): InputState {
  return { held: 0, swing: false, hotbar: -1, clicks: [], edits: [], hover: null };
}
