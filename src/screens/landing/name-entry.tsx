import { useState, type FormEvent } from 'react';
import { saveUsername } from '../../wallet/session.js';

/** The longest player name (SPEC.md §9). */
export const NAME_MAX_LENGTH = 20;

/** Props of {@link NameEntry}. */
export interface NameEntryProps {
  /** The existing name, or null when the player has none yet. */
  current: string | null;
  onDone(): void;
}

/** Name input: CONFIRM saves the trimmed name; CANCEL appears only when a name exists. */
export function NameEntry({ current, onDone }: NameEntryProps) {
  const [draft, setDraft] = useState(current ?? '');
  const name = draft.trim();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name) return;
    saveUsername(name);
    onDone();
  };
  return (
    <form className="name-entry" onSubmit={submit}>
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
        onChange={(event) => setDraft(event.target.value)}
      />
      <div className="button-row">
        <button type="submit" className="pixel-button pixel-button--go" disabled={!name}>
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
