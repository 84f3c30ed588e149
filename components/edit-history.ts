/**
 * The local player's own block edits, for undo (Ctrl+Z) and redo (Ctrl+Shift+Z). Each entry
 * says what the edit did; undoing it is the opposite edit, made as an ordinary server-checked
 * placement or removal.
 */

/** Edits remembered for undo; older ones are forgotten. */
export const UNDO_LIMIT = 50;

/** One edit: a block of `blockType` owned by `owner` was placed at or removed from tile (x, y). */
export interface BlockEdit {
  action: 'place' | 'remove';
  x: number;
  y: number;
  blockType: string;
  /** Who the block belonged to (the placer); undoing a removal is allowed only for one's own. */
  owner: string;
}

/** Undo and redo stacks, newest last. */
export interface EditHistory {
  undo: BlockEdit[];
  redo: BlockEdit[];
}

/** Empty stacks. */
export function createEditHistory(): EditHistory {
  return { undo: [], redo: [] };
}

/** Remembers a new edit made by the player: it can be undone, and what was undone can no longer be redone. */
export function recordEdit(history: EditHistory, edit: BlockEdit): void {
  history.undo.push(edit);
  if (history.undo.length > UNDO_LIMIT) history.undo.shift();
  history.redo.length = 0;
}
