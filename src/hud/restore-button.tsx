import { useAtomValue } from 'jotai';
import { hudAtoms } from '../state/hud-atoms.js';
import { useGameCommand } from './use-game-command.js';

/** 'N of your blocks removed by others': shown while there are any in view; one press puts them back. */
export function RestoreButton() {
  const count = useAtomValue(hudAtoms.restorable);
  const push = useGameCommand();
  if (count === 0) return null;
  const blocks = count === 1 ? '1 block' : `${count} blocks`;
  return (
    <button
      type="button"
      className="pixel-button pixel-button--small restore-button"
      data-testid="restore-button"
      aria-label={`Restore ${blocks} others removed`}
      onClick={() => push({ kind: 'restoreBlocks' })}
    >
      RESTORE {count}
    </button>
  );
}
