import { useAtomValue } from 'jotai';
import { getModeration, mutedAtom } from '../state/moderation-atoms.js';

/** The chat panel's MUTED list: each muted player with a button that unmutes it. Hidden while empty. */
export function MutedList() {
  const muted = useAtomValue(mutedAtom);
  if (muted.length === 0) return null;
  return (
    <details className="muted-list" data-testid="muted-list">
      <summary className="muted-title">MUTED ({muted.length})</summary>
      <ul>
        {muted.map(({ wallet, name }) => (
          <li key={wallet} className="muted-entry">
            <span>{name}</span>
            <button type="button" className="pixel-button pixel-button--small" onClick={() => void getModeration()?.unmute(wallet)}>
              Unmute
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}
