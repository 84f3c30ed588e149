import { useAtomValue } from 'jotai';
import { hudAtoms } from '../state/hud-atoms.js';

/** Covers the view while the player is defeated, until the engine respawns them. */
export function DefeatedBanner() {
  if (!useAtomValue(hudAtoms.defeated)) return null;
  return (
    <div className="defeated-banner" role="alert">
      <p className="defeated-title">DEFEATED</p>
      <p className="defeated-text">Respawning at spawn...</p>
    </div>
  );
}
