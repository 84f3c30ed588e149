import { useAtomValue } from 'jotai';
import { connectionAtom } from '../state/social-atoms.js';

/** The banner's two lines (docs/game-rules.md §2, Game). */
export const RECONNECT_TITLE = 'RECONNECTING...';
/** See RECONNECT_TITLE. */
export const RECONNECT_TEXT = 'Your edits are kept and sent once the world is back.';

/**
 * A pixel banner across the top of the view while the connection is being restored after a drop;
 * it leaves by itself once the player is back in the world. Play goes on under it.
 */
export function ReconnectBanner() {
  const restoring = useAtomValue(connectionAtom) === 'restoring';
  if (!restoring) return null;
  return (
    <div className="reconnect-banner pixel-panel" role="status" aria-live="polite" data-testid="reconnect-banner">
      <p className="reconnect-title">{RECONNECT_TITLE}</p>
      <p className="reconnect-text">{RECONNECT_TEXT}</p>
    </div>
  );
}
