/**
 * The wallet session (SPEC.md §4): silent reconnect on load, explicit connect and disconnect,
 * the wallet's own events, backend sign-in, and the per-wallet name and appearance.
 */
import { DEFAULT_APPEARANCE, type Appearance } from '../../components/appearance-types.js';
import { signInWithWallet, signOut } from '../../net/auth.js';
import { store } from '../state/store.js';
import { enteredAtom } from '../state/ui-atoms.js';
import { appearanceAtom, publicKeyAtom, signedInAtom, usernameAtom } from '../state/wallet-atoms.js';
import { getProvider, type PhantomProvider, type WalletPublicKey } from './provider.js';
import { loadAppearance, loadUsername, storeAppearance, storeUsername } from './storage.js';

/** The alert shown when no wallet extension is installed (SPEC.md §8). */
export const NO_WALLET_ALERT = 'Phantom wallet not found! Please install Phantom wallet.';

function adoptAccount(provider: PhantomProvider, address: string): void {
  if (store.get(publicKeyAtom) === address) return;
  store.set(enteredAtom, false);
  store.set(signedInAtom, false);
  store.set(publicKeyAtom, address);
  store.set(usernameAtom, loadUsername(address));
  store.set(appearanceAtom, loadAppearance(address));
  signInWithWallet(provider, address)
    .then(() => {
      if (store.get(publicKeyAtom) === address) store.set(signedInAtom, true);
    })
    .catch((error: unknown) => console.error('Sign-in failed', error));
}

function forgetAccount(): void {
  const wasConnected = store.get(publicKeyAtom) !== null;
  store.set(enteredAtom, false);
  store.set(signedInAtom, false);
  store.set(publicKeyAtom, null);
  store.set(usernameAtom, null);
  store.set(appearanceAtom, { ...DEFAULT_APPEARANCE });
  if (wasConnected) signOut().catch((error: unknown) => console.error('Sign-out failed', error));
}

/** Asks the wallet to connect (a prompt), then signs in; without a wallet, alerts. */
export async function connectWallet(): Promise<void> {
  const provider = getProvider();
  if (!provider) {
    window.alert(NO_WALLET_ALERT);
    return;
  }
  try {
    const { publicKey } = await provider.connect();
    adoptAccount(provider, publicKey.toBase58());
  } catch (error) {
    console.error('Wallet connect failed', error);
  }
}

/** Disconnects the wallet, signs out and clears the key, the name and the appearance. */
export async function disconnectWallet(): Promise<void> {
  try {
    await getProvider()?.disconnect();
  } catch (error) {
    console.error('Wallet disconnect failed', error);
  }
  forgetAccount();
}

/**
 * Starts following the wallet: listens to its events and tries a silent reconnect, which
 * succeeds only if the wallet already trusts this site. Returns a function that stops listening.
 */
export function startWallet(): () => void {
  const provider = getProvider();
  if (!provider) {
    console.log('Wallet not connected');
    return () => {};
  }
  const onAccountChanged = (publicKey?: WalletPublicKey | null) => {
    if (publicKey) adoptAccount(provider, publicKey.toBase58());
    else forgetAccount();
  };
  const onDisconnect = () => forgetAccount();
  provider.on('accountChanged', onAccountChanged);
  provider.on('disconnect', onDisconnect);
  provider
    .connect({ onlyIfTrusted: true })
    .then(({ publicKey }) => adoptAccount(provider, publicKey.toBase58()))
    .catch(() => console.log('Wallet not connected'));
  return () => {
    const off = (provider.off ?? provider.removeListener)?.bind(provider);
    off?.('accountChanged', onAccountChanged);
    off?.('disconnect', onDisconnect);
  };
}

/** Saves the player name of the connected wallet; does nothing without one. */
export function saveUsername(name: string): void {
  const publicKey = store.get(publicKeyAtom);
  if (!publicKey) return;
  storeUsername(publicKey, name);
  store.set(usernameAtom, name);
}

/** Saves the appearance of the connected wallet; does nothing without one. */
export function saveAppearance(appearance: Appearance): void {
  const publicKey = store.get(publicKeyAtom);
  if (!publicKey) return;
  storeAppearance(publicKey, appearance);
  store.set(appearanceAtom, appearance);
}
