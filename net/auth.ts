/**
 * Wallet sign-in: the wallet signs a Sign-In-With-Solana message once and supabase-js keeps
 * the session it gets back (see the wire-protocol reference, section 4).
 */
import type { SolanaWallet } from '@supabase/supabase-js';
import { getSupabase } from './client.js';

/** The statement shown in the wallet's signature prompt. */
export const SIGN_IN_STATEMENT = 'Sign in to Tessera';

/** The parts of a Phantom-style provider that sign-in needs. */
export interface WalletSigner {
  publicKey: { toBase58(): string } | null;
  /** Phantom resolves to `{ signature }`; some wallets resolve to the bytes themselves. */
  signMessage(message: Uint8Array, display?: 'utf8'): Promise<Uint8Array | { signature: Uint8Array }>;
  signIn?: SolanaWallet['signIn'];
}

/**
 * The wallet as supabase-js expects it: `signIn` when the wallet has one (the wallet then
 * formats the message), otherwise `signMessage` resolving to the 64 signature bytes.
 */
export function toSupabaseWallet(wallet: WalletSigner): SolanaWallet {
  if (typeof wallet.signIn === 'function') return { signIn: wallet.signIn.bind(wallet) };
  return {
    publicKey: wallet.publicKey,
    signMessage: async (message) => {
      const signed = await wallet.signMessage(message, 'utf8');
      return signed instanceof Uint8Array ? signed : signed.signature;
    },
  };
}

/** The wallet address a session belongs to, read from the Web3 identity of its user. */
function sessionWallet(metadata: Record<string, unknown> | undefined): string | null {
  const claims = metadata?.custom_claims as { address?: unknown } | undefined;
  return typeof claims?.address === 'string' ? claims.address : null;
}

/**
 * Makes sure a session exists for `address`: keeps a stored session of that wallet, otherwise
 * asks the wallet for one signature and signs in with it.
 */
export async function signInWithWallet(wallet: WalletSigner, address: string): Promise<void> {
  const supabase = await getSupabase();
  const { data } = await supabase.auth.getSession();
  if (data.session && sessionWallet(data.session.user.user_metadata) === address) return;
  if (data.session) await supabase.auth.signOut({ scope: 'local' });
  const { error } = await supabase.auth.signInWithWeb3({
    chain: 'solana',
    statement: SIGN_IN_STATEMENT,
    wallet: toSupabaseWallet(wallet),
  });
  if (error) throw error;
}

/** Ends the session on the server and forgets it locally. */
export async function signOut(): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.auth.signOut();
  if (error) await supabase.auth.signOut({ scope: 'local' });
}
