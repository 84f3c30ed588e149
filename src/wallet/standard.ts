/**
 * Solana wallets that announce themselves through the Wallet Standard (Phantom, Solflare,
 * Backpack, ...), found with the standard's two window events, and each adapted to the
 * provider interface the rest of the app uses (src/wallet/provider.ts), so connecting and the
 * SIWS sign-in are the same for every wallet.
 */
import type { PhantomProvider, WalletEvent, WalletPublicKey } from './provider.js';

/** An account a standard wallet exposes. */
interface StandardAccount {
  address: string;
  publicKey: Uint8Array;
}

/** The parts of a Wallet Standard wallet that are used here. */
export interface StandardWallet {
  name: string;
  icon: string;
  chains: readonly string[];
  accounts: readonly StandardAccount[];
  features: Readonly<Record<string, unknown>>;
}

interface ConnectFeature {
  connect(input?: { silent?: boolean }): Promise<{ accounts: readonly StandardAccount[] }>;
}
interface DisconnectFeature {
  disconnect(): Promise<void>;
}
interface EventsFeature {
  on(event: 'change', listener: (properties: { accounts?: readonly StandardAccount[] }) => void): () => void;
}
interface SignMessageFeature {
  signMessage(input: { account: StandardAccount; message: Uint8Array }): Promise<readonly { signature: Uint8Array }[]>;
}

/** Whether `wallet` can connect and sign in on Solana. */
export function isSolanaWallet(wallet: StandardWallet): boolean {
  const f = wallet.features;
  return wallet.chains.some((chain) => chain.startsWith('solana:')) && 'standard:connect' in f && ('solana:signIn' in f || 'solana:signMessage' in f);
}

/**
 * Follows the wallets that register through the Wallet Standard: announces the app (for
 * wallets that load first) and listens for wallets that load later. `onChange` receives the
 * Solana wallets found so far, in registration order. Returns a function that stops listening.
 */
export function watchStandardWallets(onChange: (wallets: StandardWallet[]) => void): () => void {
  const wallets: StandardWallet[] = [];
  const register = (...added: StandardWallet[]) => {
    const fresh = added.filter((wallet) => isSolanaWallet(wallet) && !wallets.includes(wallet));
    if (fresh.length > 0) {
      wallets.push(...fresh);
      onChange([...wallets]);
    }
    return () => {
      const before = wallets.length;
      for (const wallet of added) if (wallets.includes(wallet)) wallets.splice(wallets.indexOf(wallet), 1);
      if (wallets.length !== before) onChange([...wallets]);
    };
  };
  const api = Object.freeze({ register });
  const onRegister = (event: Event) => (event as CustomEvent<(app: typeof api) => void>).detail(api);
  window.addEventListener('wallet-standard:register-wallet', onRegister);
  window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: api }));
  return () => window.removeEventListener('wallet-standard:register-wallet', onRegister);
}

const keyOf = (account: StandardAccount): WalletPublicKey => ({ toBase58: () => account.address });

/** `wallet` behind the provider interface: connect, disconnect, account events, signIn and signMessage. */
export function standardProvider(wallet: StandardWallet): PhantomProvider {
  const f = wallet.features;
  let account: StandardAccount | null = null;
  const listeners = new Map<(publicKey?: WalletPublicKey | null) => void, () => void>();
  const provider: PhantomProvider = {
    publicKey: null,
    async connect(options) {
      const { accounts } = await (f['standard:connect'] as ConnectFeature).connect({ silent: options?.onlyIfTrusted === true });
      account = accounts[0] ?? null;
      if (!account) throw new Error(`${wallet.name}: no account`);
      provider.publicKey = keyOf(account);
      return { publicKey: provider.publicKey };
    },
    async disconnect() {
      account = null;
      provider.publicKey = null;
      await (f['standard:disconnect'] as DisconnectFeature | undefined)?.disconnect();
    },
    async signMessage(message) {
      if (!account) throw new Error(`${wallet.name}: not connected`);
      const [output] = await (f['solana:signMessage'] as SignMessageFeature).signMessage({ account, message });
      if (!output) throw new Error(`${wallet.name}: no signature`);
      return { signature: output.signature };
    },
    on(event: WalletEvent, handler) {
      const events = f['standard:events'] as EventsFeature | undefined;
      if (!events || event === 'connect') return;
      const off = events.on('change', ({ accounts }) => {
        if (!accounts) return;
        const next = accounts[0] ?? null;
        if (next?.address === account?.address) return;
        account = next;
        provider.publicKey = next ? keyOf(next) : null;
        handler(provider.publicKey);
      });
      listeners.set(handler, off);
    },
    off(_event: WalletEvent, handler) {
      listeners.get(handler)?.();
      listeners.delete(handler);
    },
  };
  const signIn = f['solana:signIn'] as { signIn: NonNullable<PhantomProvider['signIn']> } | undefined;
  if (signIn) provider.signIn = (input) => signIn.signIn(input);
  return provider;
}
