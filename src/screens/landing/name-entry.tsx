import { useAtomValue } from 'jotai';
import { useState, type FormEvent } from 'react';
import { normaliseName } from '../../../components/text.js';
import { NAME_MAX_LENGTH } from '../../../protocol/rules.js';
import { publicKeyAtom } from '../../state/wallet-atoms.js';
import { saveUsername } from '../../wallet/session.js';
import { nameRefusal } from './name-check.js';

/** Props of {@link NameEntry}. */
export interface NameEntryProps {
  /** The existing name, or null when the player has none yet. */
  current: string | null;
  onDone(): void;
}

/**
 * Name input: CONFIRM saves the trimmed name (NFKC-normalised, as the server stores it) unless it
 * has a forbidden character or another player holds it, which the entry says instead; CANCEL
 * appears only when a name exists.
 */
export function NameEntry({ current, onDone }: NameEntryProps) {
  const publicKey = useAtomValue(publicKeyAtom);
  const [draft, setDraft] = useState(current ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const name = draft.trim();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name || checking) return;
    setChecking(true);
    const refusal = await nameRefusal(name, publicKey);
    setChecking(false);
    setProblem(refusal);
    if (refusal) return;
    saveUsername(normaliseName(name));
    onDone();
  };
  return (
    <form className="name-entry" onSubmit={(event) => void submit(event)}>
      <label className="field-label" htmlFor="player-name">
        CHOOSE YOUR NAME
      </label>
      <input
        id="player-name"
        className="pixel-input"
        placeholder="PLAYER_001"
        maxLength={NAME_MAX_LENGTH}
        autoComplete="off"
        autoFocus
        value={draft}
        onChange={(event) => {
          setDraft(event.target.value);
          setProblem(null);
        }}
      />
      {problem ? (
        <p className="name-problem" role="alert">
          {problem}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="pixel-button pixel-button--go" disabled={!name || checking}>
          CONFIRM
        </button>
        {current ? (
          <button type="button" className="pixel-button" onClick={onDone}>
            CANCEL
          </button>
        ) : null}
      </div>
    </form>
  );
}
