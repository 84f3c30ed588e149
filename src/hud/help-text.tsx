import { VOICE_RANGE_TILES } from '../../components/sounds.js';

/** The controls (docs/game-rules.md §2 help text, plus the attack key). */
export const HELP_ITEMS = [
  'WASD/Arrows move',
  '1-8 hotbar',
  'I inventory',
  'C customisation',
  'M minimap',
  'left click place',
  'right click remove',
  'Space attack',
  `hold mouse for voice chat (${VOICE_RANGE_TILES} block range)`,
] as const;

/** The help line under the game view. */
export function HelpText() {
  return (
    <ul className="help-text" data-testid="help-text">
      {HELP_ITEMS.map((item) => (
        <li key={item}>{item}</li>
      ))}
    </ul>
  );
}
