import { useSetAtom } from 'jotai';
import { enteredAtom } from '../../state/ui-atoms.js';

/** Props of {@link WelcomeBack}. */
export interface WelcomeBackProps {
  name: string;
  onChangeName(): void;
}

/** WELCOME BACK with the name, ENTER WORLD and CHANGE NAME. */
export function WelcomeBack({ name, onChangeName }: WelcomeBackProps) {
  const enter = useSetAtom(enteredAtom);
  return (
    <div className="welcome-back">
      <p className="welcome-label">WELCOME BACK</p>
      <p className="welcome-name">{name}</p>
      <button type="button" className="pixel-button pixel-button--go pixel-button--large" onClick={() => enter(true)}>
        ENTER WORLD
      </button>
      <button type="button" className="pixel-button pixel-button--small" onClick={onChangeName}>
        CHANGE NAME
      </button>
    </div>
  );
}
