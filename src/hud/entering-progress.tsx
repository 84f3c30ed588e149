import { useAtomValue } from 'jotai';
import { enteringAtom, enteringFraction, enteringLabel } from '../state/entering-atoms.js';

/** Segments of the progress bar. */
const SEGMENTS = 12;

/**
 * Says what happens between ENTER WORLD and the first complete view: a pixel panel over the
 * world with the current step and a segmented bar, gone once the world is ready.
 */
export function EnteringProgress() {
  const progress = useAtomValue(enteringAtom);
  if (progress.phase === 'ready') return null;
  const filled = Math.round(enteringFraction(progress) * SEGMENTS);
  const label = enteringLabel(progress);
  return (
    <div className="entering-progress" data-testid="entering-progress" data-phase={progress.phase}>
      <div className="entering-panel pixel-panel" role="status" aria-live="polite">
        <p className="entering-label">{label}</p>
        <div className="entering-bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={SEGMENTS} aria-valuenow={filled}>
          {Array.from({ length: SEGMENTS }, (_, i) => (
            <span key={i} className={i < filled ? 'entering-segment is-filled' : 'entering-segment'} />
          ))}
        </div>
      </div>
    </div>
  );
}
