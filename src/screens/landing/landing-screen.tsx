import { useAtomValue } from 'jotai';
import { banRefusalAtom } from '../../state/moderation-atoms.js';
import { isConnectedAtom } from '../../state/wallet-atoms.js';
import { ConnectButton } from './connect-button.js';
import { LandingFooter } from './landing-footer.js';
import { PlayerSetup } from './player-setup.js';

/** The landing screen: title, wallet connection, player name and the way into the world. */
export function LandingScreen() {
  const connected = useAtomValue(isConnectedAtom);
  const banned = useAtomValue(banRefusalAtom);
  return (
    <main className="landing">
      <div className="landing-sky" aria-hidden="true" />
      <h1 className="landing-title">TESSERA</h1>
      <p className="landing-tagline">Build together. Block by block.</p>
      {banned ? (
        <p className="pixel-panel landing-banned" role="alert">
          {banned}
        </p>
      ) : null}
      <section className="pixel-panel landing-card">{connected ? <PlayerSetup /> : <ConnectButton />}</section>
      <LandingFooter />
    </main>
  );
}
