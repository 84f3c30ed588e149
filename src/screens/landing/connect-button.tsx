import { connectWallet } from '../../wallet/session.js';

/** Shown while no wallet is connected. */
export function ConnectButton() {
  return (
    <div className="connect">
      <p className="landing-hint">Connect your wallet to play</p>
      <button type="button" className="pixel-button pixel-button--phantom" onClick={() => void connectWallet()}>
        <span className="phantom-icon" aria-hidden="true" />
        CONNECT PHANTOM
      </button>
    </div>
  );
}
