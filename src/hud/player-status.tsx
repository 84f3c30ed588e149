import { useAtomValue } from 'jotai';
import { hudAtoms } from '../state/hud-atoms.js';

function PlayerName() {
  return <span className="status-name">{useAtomValue(hudAtoms.name)}</span>;
}

function PlayerLevel() {
  return <span className="status-level">LV {useAtomValue(hudAtoms.level)}</span>;
}

function MaxHealth() {
  return <>{useAtomValue(hudAtoms.maxHealth)}</>;
}

function HealthBar() {
  const health = useAtomValue(hudAtoms.health);
  return (
    <div className="health">
      <div className="health-bar" role="meter" aria-label="Health" aria-valuenow={health}>
        <HealthFill health={health} />
      </div>
      <span className="health-text">
        HP {health}/<MaxHealth />
      </span>
    </div>
  );
}

function HealthFill({ health }: { health: number }) {
  const max = useAtomValue(hudAtoms.maxHealth);
  const ratio = max > 0 ? Math.max(0, Math.min(1, health / max)) : 0;
  const tone = ratio > 0.5 ? 'high' : ratio > 0.25 ? 'mid' : 'low';
  return <div className={`health-fill health-fill--${tone}`} style={{ width: `${ratio * 100}%` }} />;
}

/** Below the position overlay: name, level and the health bar with HP current/max. */
export function PlayerStatus() {
  return (
    <div className="player-status" data-testid="player-status">
      <p className="status-line">
        <PlayerName /> <PlayerLevel />
      </p>
      <HealthBar />
    </div>
  );
}
