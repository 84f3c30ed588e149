/** The Phantom-style browser wallet (window.phantom.solana, falling back to window.solana). */
import type { WalletSigner } from '../../net/auth.js';

/** A public key as Phantom hands it out. */
export interface WalletPublicKey {
  toBase58(): string;
}

/** Events a Phantom-style provider emits. */
export type WalletEvent = 'connect' | 'disconnect' | 'accountChanged';

/** The parts of Phantom's injected provider the app uses. */
export interface PhantomProvider extends WalletSigner {
  isPhantom?: boolean;
  publicKey: WalletPublicKey | null;
  /** With `onlyIfTrusted`, resolves only if the wallet already trusts this site, without a prompt. */
  connect(options?: { onlyIfTrusted?: boolean }): Promise<{ publicKey: WalletPublicKey }>;
  disconnect(): Promise<void>;
  on(event: WalletEvent, handler: (publicKey?: WalletPublicKey | null) => void): void;
  off?(event: WalletEvent, handler: (publicKey?: WalletPublicKey | null) => void): void;
  removeListener?(event: WalletEvent, handler: (publicKey?: WalletPublicKey | null) => void): void;
}

declare global {
  interface Window {
    phantom?: { solana?: PhantomProvider };
    solana?: PhantomProvider;
  }
}

/** The injected wallet, or null when no wallet extension is installed. */
export function getProvider(): PhantomProvider | null {
  return window.phantom?.solana ?? window.solana ?? null;
}

/** Shortens an address to its first 6 and last 6 characters. */
export function shortAddress(address: string): string {
  return address.length <= 12 ? address : `${address.slice(0, 6)}...${address.slice(-6)}`;
}
