import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useState } from 'react';
import { enteredAtom } from '../../state/ui-atoms.js';
import { publicKeyAtom, signedInAtom } from '../../state/wallet-atoms.js';
import { nameRefusal } from './name-check.js';

/** Props of {@link WelcomeBack}. */
export interface WelcomeBackProps {
  name: string;
  onChangeName(): void;
}

/**
 * WELCOME BACK with the name, ENTER WORLD and CHANGE NAME. A saved name that another player
 * holds now (or that the server would refuse) is said here, and ENTER WORLD waits for a new one.
 */
export function WelcomeBack({ name, onChangeName }: WelcomeBackProps) {
  const enter = useSetAtom(enteredAtom);
  const publicKey = useAtomValue(publicKeyAtom);
  const signedIn = useAtomValue(signedInAtom);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    void nameRefusal(name, publicKey).then((refusal) => live && setProblem(refusal));
    return () => {
      live = false;
    };
  }, [name, publicKey, signedIn]);
  return (
    <div className="welcome-back">
      <p className="welcome-label">WELCOME BACK</p>
      <p className="welcome-name">{name}</p>
      {problem ? (
        <p className="name-problem" role="alert">
          {problem}
        </p>
      ) : null}
      <button type="button" className="pixel-button pixel-button--go pixel-button--large" disabled={problem !== null} onClick={() => enter(true)}>
        ENTER WORLD
      </button>
      <button type="button" className="pixel-button pixel-button--small" onClick={onChangeName}>
        CHANGE NAME
      </button>
    </div>
  );
}
