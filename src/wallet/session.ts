/**
 * The wallet session (docs/game-rules.md §4): silent reconnect on load, explicit connect and disconnect,
 * the wallet's own events, backend sign-in, and the per-wallet name and appearance.
 */
import { DEFAULT_APPEARANCE, type Appearance } from '../../components/appearance-types.js';
import { signInWithWallet, signOut } from '../../net/auth.js';
import { banRefusalAtom } from '../state/moderation-atoms.js';
import { store } from '../state/store.js';
import { enteredAtom } from '../state/ui-atoms.js';
import { appearanceAtom, publicKeyAtom, signedInAtom, standardWalletsAtom, usernameAtom } from '../state/wallet-atoms.js';
import { getProvider, type PhantomProvider, type WalletPublicKey } from './provider.js';
import { standardProvider, watchStandardWallets, type StandardWallet } from './standard.js';
import { loadAppearance, loadUsername, storeAppearance, storeUsername } from './storage.js';

/** The alert shown when no wallet extension is installed (docs/game-rules.md §8). */
export const NO_WALLET_ALERT = 'Phantom wallet not found! Please install Phantom wallet.';

/** The localStorage key naming the Wallet Standard wallet last connected, for the silent reconnect. */
export const LAST_WALLET_KEY = 'tessera_wallet';

/** Wallet Standard wallets announced so far, and the provider of the wallet in use. */
let standardWallets: StandardWallet[] = [];
let active: PhantomProvider | null = null;

function adoptAccount(provider: PhantomProvider, address: string): void {
  active = provider;
  if (store.get(publicKeyAtom) === address) return;
  store.set(enteredAtom, false);
  store.set(signedInAtom, false);
  store.set(publicKeyAtom, address);
  store.set(usernameAtom, loadUsername(address));
  store.set(appearanceAtom, loadAppearance(address));
  store.set(banRefusalAtom, null);
  signInWithWallet(provider, address)
    .then(() => {
      if (store.get(publicKeyAtom) === address) store.set(signedInAtom, true);
    })
    .catch((error: unknown) => {
      console.error('Sign-in failed', error);
      if ((error as { code?: string }).code === 'user_banned') store.set(banRefusalAtom, (error as Error).message);
    });
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

/**
 * The wallet a connect button means: `name` is a Wallet Standard wallet; without a name, the
 * default: Phantom (injected, or announced), else the first wallet announced.
 */
function chooseWallet(name?: string): { provider: PhantomProvider; standard: string | null } | null {
  const named = (wanted: string) => standardWallets.find((wallet) => wallet.name === wanted);
  if (name) {
    const wallet = named(name);
    return wallet ? { provider: standardProvider(wallet), standard: wallet.name } : null;
  }
  const injected = getProvider();
  if (injected) return { provider: injected, standard: null };
  const fallback = named('Phantom') ?? standardWallets[0];
  return fallback ? { provider: standardProvider(fallback), standard: fallback.name } : null;
}

/**
 * Asks a wallet to connect (a prompt), then signs in: `walletName` picks a Wallet Standard
 * wallet, none picks the default (Phantom). With no wallet at all, alerts (SPEC.md §8).
 */
export async function connectWallet(walletName?: string): Promise<void> {
  const chosen = chooseWallet(walletName);
  if (!chosen) {
    window.alert(NO_WALLET_ALERT);
    return;
  }
  try {
    const { publicKey } = await chosen.provider.connect();
    if (chosen.standard) localStorage.setItem(LAST_WALLET_KEY, chosen.standard);
    else localStorage.removeItem(LAST_WALLET_KEY);
    adoptAccount(chosen.provider, publicKey.toBase58());
  } catch (error) {
    console.error('Wallet connect failed', error);
  }
}

/** Whether the browser has any wallet: an injected provider or one announced through the Wallet Standard. */
export function hasAnyWallet(): boolean {
  return getProvider() !== null || standardWallets.length > 0;
}

/** Disconnects the wallet, signs out and clears the key, the name and the appearance. */
export async function disconnectWallet(): Promise<void> {
  try {
    await (active ?? getProvider())?.disconnect();
  } catch (error) {
    console.error('Wallet disconnect failed', error);
  }
  active = null;
  localStorage.removeItem(LAST_WALLET_KEY);
  forgetAccount();
}

/**
 * Starts following the wallet: listens to its events and tries a silent reconnect, which
 * succeeds only if the wallet already trusts this site. Returns a function that stops listening.
 */
export function startWallet(): () => void {
  const stopWatching = watchStandardWallets((wallets) => {
    const fresh = wallets.filter((wallet) => !standardWallets.includes(wallet));
    standardWallets = wallets;
    store.set(standardWalletsAtom, wallets.map((wallet) => wallet.name));
    const last = localStorage.getItem(LAST_WALLET_KEY);
    const remembered = fresh.find((wallet) => wallet.name === last);
    if (remembered && !active) reconnectStandard(remembered);
  });
  const stopFollowing = followInjected();
  return () => {
    stopWatching();
    stopFollowing();
  };
}

/** Silent reconnect of the Wallet Standard wallet used last time. */
function reconnectStandard(wallet: StandardWallet): void {
  const provider = standardProvider(wallet);
  provider
    .connect({ onlyIfTrusted: true })
    .then(({ publicKey }) => adoptAccount(provider, publicKey.toBase58()))
    .catch(() => console.log('Wallet not connected'));
}

/** Follows the injected (Phantom-style) wallet's events and tries its silent reconnect. */
function followInjected(): () => void {
  const provider = getProvider();
  if (!provider || localStorage.getItem(LAST_WALLET_KEY)) {
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
