import { useAtom, useAtomValue } from 'jotai';
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { REPORT_NOTE_MAX, REPORT_REASONS, type ReportReason } from '../../protocol/rules.js';
import { getModeration, mutedWalletsAtom, nameMenuAtom } from '../state/moderation-atoms.js';
import { showToast } from '../state/toasts.js';

const keepKeysHere = (event: KeyboardEvent) => event.stopPropagation();

function tell(refusal: string | null, done: string) {
  if (refusal) showToast({ title: 'Not Done', description: refusal, variant: 'destructive' });
  else showToast({ title: done, description: '', variant: 'default' });
}

function ReportForm({ wallet, onDone }: { wallet: string; onDone(): void }) {
  const [reason, setReason] = useState<ReportReason>('griefing');
  const [note, setNote] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void getModeration()
      ?.report(wallet, reason, note)
      .then((refusal) => tell(refusal, 'Report Sent'));
    onDone();
  };
  return (
    <form className="name-menu-report" onSubmit={submit} aria-label="Report">
      <label className="name-menu-label">
        Reason
        <select className="pixel-input" value={reason} onChange={(event) => setReason(event.target.value as ReportReason)} onKeyDown={keepKeysHere}>
          {REPORT_REASONS.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      </label>
      <textarea
        className="pixel-input name-menu-note"
        placeholder="What happened? (optional)"
        maxLength={REPORT_NOTE_MAX}
        value={note}
        onChange={(event) => setNote(event.target.value)}
        onKeyDown={keepKeysHere}
        onKeyUp={keepKeysHere}
      />
      <button type="submit" className="pixel-button pixel-button--small pixel-button--danger">
        Send Report
      </button>
    </form>
  );
}

/** The small menu a player's name opens: Mute or Unmute, and Report with a reason and a note. */
export function NameMenu() {
  const [target, setTarget] = useAtom(nameMenuAtom);
  const muted = useAtomValue(mutedWalletsAtom);
  const [reporting, setReporting] = useState(false);
  if (!target) return null;
  const close = () => {
    setReporting(false);
    setTarget(null);
  };
  const isMuted = muted.has(target.wallet);
  const toggleMute = () => {
    const moderation = getModeration();
    if (!moderation) return close();
    const action = isMuted ? moderation.unmute(target.wallet) : moderation.mute(target.wallet, target.name);
    void action.then((refusal) => tell(refusal, `${isMuted ? 'Unmuted' : 'Muted'} ${target.name}`));
    close();
  };
  return (
    <div
      className="pixel-panel name-menu"
      role="menu"
      aria-label={`${target.name} menu`}
      style={{ left: Math.min(target.x, window.innerWidth - 220), top: Math.min(target.y, window.innerHeight - 220) }}
    >
      <p className="name-menu-title">{target.name}</p>
      <button type="button" role="menuitem" className="pixel-button pixel-button--small" onClick={toggleMute}>
        {isMuted ? 'Unmute' : 'Mute'}
      </button>
      {reporting ? (
        <ReportForm wallet={target.wallet} onDone={close} />
      ) : (
        <button type="button" role="menuitem" className="pixel-button pixel-button--small pixel-button--danger" onClick={() => setReporting(true)}>
          Report
        </button>
      )}
      <button type="button" className="pixel-button pixel-button--small" aria-label="Close menu" onClick={close}>
        [X]
      </button>
    </div>
  );
}
