import { useAtomValue } from 'jotai';
import { useState } from 'react';
import { usernameAtom } from '../../state/wallet-atoms.js';
import { NameEntry } from './name-entry.js';
import { PlayerReady } from './player-ready.js';
import { WelcomeBack } from './welcome-back.js';

/** Shown once connected: the wallet, then the name entry or the welcome back. */
export function PlayerSetup() {
  const username = useAtomValue(usernameAtom);
  const [changing, setChanging] = useState(false);
  return (
    <div className="player-setup">
      <PlayerReady />
      {!username || changing ? (
        <NameEntry current={username} onDone={() => setChanging(false)} />
      ) : (
        <WelcomeBack name={username} onChangeName={() => setChanging(true)} />
      )}
    </div>
  );
}
