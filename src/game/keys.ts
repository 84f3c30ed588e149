/**
 * The keyboard mapping of docs/game-rules.md §2 (plus Ctrl+Z undo and Ctrl+Shift+Z redo), as pure
 * functions of `KeyboardEvent.code` over the input resource. Touch controls press the same codes.
 */
import { KEY, type InputState } from '../../components/input.js';

const MOVE: Readonly<Record<string, number>> = Object.freeze({
  KeyW: KEY.up,
  ArrowUp: KEY.up,
  KeyS: KEY.down,
  ArrowDown: KEY.down,
  KeyA: KEY.left,
  ArrowLeft: KEY.left,
  KeyD: KEY.right,
  ArrowRight: KEY.right,
});

/** Modifier keys held with a key. */
export interface Modifiers {
  /** Ctrl, or Cmd on a Mac. */
  ctrl: boolean;
  shift: boolean;
}

const NO_MODIFIERS: Modifiers = Object.freeze({ ctrl: false, shift: false });

/**
 * Applies a key press (`down`) or release to `input`. Returns whether the game used the key,
 * so the caller can prevent the browser's default (page scrolling on arrows and Space).
 */
export function applyKey(input: InputState, code: string, down: boolean, modifiers: Modifiers = NO_MODIFIERS): boolean {
  if (code === 'KeyZ' && modifiers.ctrl) {
    if (down) input.edits.push(modifiers.shift ? 'redo' : 'undo');
    return true;
  }
  const bit = MOVE[code];
  if (bit !== undefined) {
    input.held = down ? input.held | bit : input.held & ~bit;
    return true;
  }
  const digit = /^(?:Digit|Numpad)([1-8])$/.exec(code)?.[1];
  if (digit) {
    if (down) input.hotbar = Number(digit) - 1;
    return true;
  }
  if (code === 'Space') {
    if (down) input.swing = true;
    return true;
  }
  return false;
}
