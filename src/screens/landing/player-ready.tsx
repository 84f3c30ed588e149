import { useAtomValue } from 'jotai';
import { publicKeyAtom } from '../../state/wallet-atoms.js';
import { shortAddress } from '../../wallet/provider.js';
import { disconnectWallet } from '../../wallet/session.js';

/** PLAYER READY with the shortened address and a disconnect button. */
export function PlayerReady() {
  const publicKey = useAtomValue(publicKeyAtom) ?? '';
  return (
    <div className="player-ready">
      <div>
        <p className="player-ready-label">PLAYER READY</p>
        <p className="player-address" title={publicKey}>
          {shortAddress(publicKey)}
        </p>
      </div>
      <button type="button" className="pixel-button pixel-button--small pixel-button--danger" onClick={() => void disconnectWallet()}>
        DISCONNECT
      </button>
    </div>
  );
}
