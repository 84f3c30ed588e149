import { useAtomValue } from 'jotai';
import { hudAtoms } from '../state/hud-atoms.js';
import { connectionAtom } from '../state/social-atoms.js';

function ConnectionMark() {
  const connected = useAtomValue(connectionAtom) === 'online';
  return (
    <span className={`connection-mark ${connected ? 'is-connected' : 'is-offline'}`} title={connected ? 'Connected' : 'Disconnected'}>
      {connected ? '✓' : '✗'}
    </span>
  );
}

/** Players online (other players plus self) with a tick while the connection is online, else a cross. */
export function PlayersOnline() {
  const count = useAtomValue(hudAtoms.remotePlayers) + 1;
  return (
    <p className="players-online" data-testid="players-online">
      <ConnectionMark /> {count} ONLINE
    </p>
  );
}
