import { useAtomValue, type PrimitiveAtom } from 'jotai';
import { hudAtoms } from '../state/hud-atoms.js';

function Coordinate({ label, value }: { label: string; value: PrimitiveAtom<number> }) {
  return (
    <span className="coordinate">
      {label}: {useAtomValue(value)}
    </span>
  );
}

function BiomeLabel() {
  const biome = useAtomValue(hudAtoms.biome);
  return <p className={`biome ${biome === 'Spawn' ? 'biome--spawn' : ''}`}>{biome}</p>;
}

/** "Claimed by NAME" while the player stands in a claim that is not its own. */
function ClaimedBy() {
  const owner = useAtomValue(hudAtoms.claimedBy);
  if (!owner) return null;
  return <p className="claimed-by" data-testid="claimed-by">Claimed by {owner}</p>;
}

/** Top left of the game view: the player's tile coordinates and biome, and whose land it is. */
export function PositionOverlay() {
  return (
    <div className="position-overlay" data-testid="position-overlay">
      <p className="coordinates">
        <Coordinate label="X" value={hudAtoms.tileX} /> <Coordinate label="Y" value={hudAtoms.tileY} />
      </p>
      <BiomeLabel />
      <ClaimedBy />
    </div>
  );
}
