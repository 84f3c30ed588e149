import { useAtomValue } from 'jotai';
import { touchLayoutAtom } from '../../state/ui-atoms.js';
import { standardWalletsAtom } from '../../state/wallet-atoms.js';
import { getProvider } from '../../wallet/provider.js';
import { connectWallet } from '../../wallet/session.js';

/** Phantom's universal link that opens `url` in Phantom's in-app browser (docs.phantom.app, "browse" deeplink). */
export function phantomBrowseLink(url: string): string {
  return `https://phantom.app/ul/browse/${encodeURIComponent(url)}?ref=${encodeURIComponent(new URL(url).origin)}`;
}

/** Shown while no wallet is connected: Phantom as the default, other announced wallets, and on a phone without any wallet a link into Phantom's browser. */
export function ConnectButton() {
  const wallets = useAtomValue(standardWalletsAtom);
  const touch = useAtomValue(touchLayoutAtom);
  const others = wallets.filter((name) => name !== 'Phantom');
  const noWallet = wallets.length === 0 && getProvider() === null;
  return (
    <div className="connect">
      <p className="landing-hint">Connect your wallet to play</p>
      <button type="button" className="pixel-button pixel-button--phantom" onClick={() => void connectWallet()}>
        <span className="phantom-icon" aria-hidden="true" />
        CONNECT PHANTOM
      </button>
      {others.length > 0 && (
        <div className="other-wallets" role="group" aria-label="Other wallets">
          {others.map((name) => (
            <button key={name} type="button" className="pixel-button pixel-button--small" onClick={() => void connectWallet(name)}>
              CONNECT {name.toUpperCase()}
            </button>
          ))}
        </div>
      )}
      {touch && noWallet && (
        <a className="pixel-button pixel-button--small open-in-phantom" href={phantomBrowseLink(window.location.href)}>
          OPEN IN PHANTOM APP
        </a>
      )}
    </div>
  );
}
