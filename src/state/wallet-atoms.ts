/** The wallet context of docs/game-rules.md §3: isConnected, publicKey, username, characterAppearance. */
import { atom } from 'jotai';
import { DEFAULT_APPEARANCE, type Appearance } from '../../components/appearance-types.js';

/** The connected wallet's base58 address, or null when disconnected. */
export const publicKeyAtom = atom<string | null>(null);

/** True while a wallet is connected. */
export const isConnectedAtom = atom((get) => get(publicKeyAtom) !== null);

/** The player name stored for the connected wallet, or null when none is set. */
export const usernameAtom = atom<string | null>(null);

/** The character's look stored for the connected wallet. */
export const appearanceAtom = atom<Appearance>({ ...DEFAULT_APPEARANCE });

/** Names of the Solana wallets announced through the Wallet Standard, in order of arrival. */
export const standardWalletsAtom = atom<string[]>([]);

/** True once the backend session for the connected wallet exists. */
export const signedInAtom = atom(false);
