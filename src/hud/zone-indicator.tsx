import { useAtomValue } from 'jotai';
import { hudAtoms } from '../state/hud-atoms.js';

/** SAFE ZONE or PvP ZONE, top right of the game view. */
export function ZoneIndicator() {
  const zone = useAtomValue(hudAtoms.zone);
  const safe = zone === 'safe';
  return (
    <div className={`pixel-panel zone-indicator zone-indicator--${zone}`} data-testid="zone-indicator">
      <p className="zone-title">{safe ? 'SAFE ZONE' : 'PvP ZONE'}</p>
      <p className="zone-text">{safe ? 'No combat allowed' : 'Combat enabled'}</p>
    </div>
  );
}
