import { useAtomValue } from 'jotai';
import { hudAtoms } from '../state/hud-atoms.js';

/** Covers the view while the player is defeated, counting down the seconds until the engine respawns them. */
export function DefeatedBanner() {
  const defeated = useAtomValue(hudAtoms.defeated);
  const seconds = useAtomValue(hudAtoms.respawnIn);
  if (!defeated) return null;
  return (
    <div className="defeated-banner" role="alert">
      <p className="defeated-title">DEFEATED</p>
      <p className="defeated-text">Respawning at spawn in {seconds}...</p>
    </div>
  );
}
