import { useAtomValue } from 'jotai';
import { hudAtoms } from '../state/hud-atoms.js';

/** Warns while other players are within combat range, with their number. */
export function CombatWarning() {
  const inRange = useAtomValue(hudAtoms.playersInRange);
  if (inRange <= 0) return null;
  return (
    <p className="combat-warning" role="status" data-testid="combat-warning">
      ⚔ {inRange} {inRange === 1 ? 'player' : 'players'} in combat range
    </p>
  );
}
