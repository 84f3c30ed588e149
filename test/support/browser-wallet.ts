/**
 * A test wallet that behaves like Phantom's injected provider and signs with a real ed25519
 * key. The key is made in Node and imported into the page's WebCrypto, so every page of a
 * browser context (also after a reload) sees the same wallet.
 */
import type { BrowserContext } from 'playwright-core';
import { createWalletKey } from './harness.js';

/** A wallet for pages ({@link installTestWallet}): its base58 address and its private key as a JWK, which the page imports. */
export interface PageWallet {
  address: string;
  jwk: JsonWebKey;
}

/** How the injected provider behaves. */
export interface WalletBehaviour {
  /** Offer `signIn` (Wallet Standard style); without it supabase-js uses `signMessage`. */
  signIn?: boolean;
  /** Trust the site from the start, so a silent reconnect succeeds on the first load. */
  trusted?: boolean;
}

/** Makes a wallet for pages with a fresh key ({@link createWalletKey}, as the Node test wallet's). */
export function createPageWallet(): PageWallet {
  const { address, privateKey } = createWalletKey();
  return { address, jwk: privateKey.export({ format: 'jwk' }) as JsonWebKey };
}

/**
 * What both test wallets share, as page script inside their `(cfg) => { ... }`: signing with the
 * wallet's ed25519 key, and the Sign-In-With-Solana message a wallet's `signIn` builds and signs.
 */
const SIGNING = String.raw`  const key = crypto.subtle.importKey('jwk', cfg.jwk, { name: 'Ed25519' }, false, ['sign']);
  const sign = async (bytes) => new Uint8Array(await crypto.subtle.sign('Ed25519', await key, bytes));
  const siwsMessage = (input) => {
    const lines = [input.domain + ' wants you to sign in with your Solana account:', cfg.address];
    if (input.statement) lines.push('', input.statement);
    lines.push('');
    if (input.uri) lines.push('URI: ' + input.uri);
    if (input.version) lines.push('Version: ' + input.version);
    if (input.chainId) lines.push('Chain ID: ' + input.chainId);
    if (input.nonce) lines.push('Nonce: ' + input.nonce);
    if (input.issuedAt) lines.push('Issued At: ' + input.issuedAt);
    return new TextEncoder().encode(lines.join('\n'));
  };
`;

/** The provider, as page script. Kept as plain JavaScript so that no build helper leaks in. */
const PROVIDER_SCRIPT = String.raw`(cfg) => {
  const TRUST = '__testWallet_trusted';
  if (cfg.trusted && !localStorage.getItem(TRUST)) localStorage.setItem(TRUST, cfg.address);
${SIGNING}  const publicKey = { toBase58: () => cfg.address, toString: () => cfg.address };
  const listeners = {};
  const calls = { connect: 0, silentConnect: 0, disconnect: 0, signMessage: 0, signIn: 0 };
  const emit = (event, arg) => (listeners[event] || []).slice().forEach((handler) => handler(arg));
  const provider = {
    isPhantom: true,
    publicKey: null,
    isConnected: false,
    async connect(options) {
      if (options && options.onlyIfTrusted) {
        calls.silentConnect++;
        if (localStorage.getItem(TRUST) !== cfg.address) throw new Error('User rejected the request.');
      } else {
        calls.connect++;
      }
      localStorage.setItem(TRUST, cfg.address);
      provider.publicKey = publicKey;
      provider.isConnected = true;
      emit('connect', publicKey);
      return { publicKey };
    },
    async disconnect() {
      calls.disconnect++;
      provider.publicKey = null;
      provider.isConnected = false;
      emit('disconnect');
    },
    async signMessage(message) {
      calls.signMessage++;
      if (!provider.isConnected) throw new Error('Wallet not connected');
      return { signature: await sign(message), publicKey };
    },
    async signIn(input) {
      calls.signIn++;
      provider.publicKey = publicKey;
      provider.isConnected = true;
      const signedMessage = siwsMessage(input);
      return { account: { address: cfg.address, publicKey: publicKey }, signedMessage, signature: await sign(signedMessage) };
    },
    on(event, handler) { (listeners[event] = listeners[event] || []).push(handler); },
    off(event, handler) { listeners[event] = (listeners[event] || []).filter((h) => h !== handler); },
    removeListener(event, handler) { provider.off(event, handler); },
  };
  if (!cfg.signIn) delete provider.signIn;
  window.phantom = { solana: provider };
  window.solana = provider;
  window.__testWallet = { calls, emit, address: cfg.address };
}`;

/** Injects `wallet` into every page of `context` before any page script runs. */
export async function installTestWallet(context: BrowserContext, wallet: PageWallet, behaviour: WalletBehaviour = {}): Promise<void> {
  const cfg = { address: wallet.address, jwk: wallet.jwk, signIn: behaviour.signIn ?? true, trusted: behaviour.trusted ?? false };
  await context.addInitScript({ content: `(${PROVIDER_SCRIPT})(${JSON.stringify(cfg)});` });
}

/**
 * A second kind of test wallet: it is not injected as `window.phantom` but announces itself
 * through the Wallet Standard (the `wallet-standard:register-wallet` event, and again on the
 * app's `wallet-standard:app-ready`), with `standard:connect`, `standard:events`,
 * `solana:signMessage` and `solana:signIn`, as Solflare or Backpack do. Plain JavaScript.
 */
const STANDARD_SCRIPT = String.raw`(cfg) => {
${SIGNING}  const account = { address: cfg.address, publicKey: new Uint8Array(32), chains: ['solana:mainnet'], features: ['solana:signIn', 'solana:signMessage'] };
  const calls = { connect: 0, silentConnect: 0, signMessage: 0, signIn: 0 };
  const TRUST = '__standardWallet_trusted_' + cfg.name;
  const wallet = {
    version: '1.0.0',
    name: cfg.name,
    icon: 'data:image/svg+xml;base64,PHN2Zy8+',
    chains: ['solana:mainnet'],
    accounts: [],
    features: {
      'standard:connect': { version: '1.0.0', async connect(input) {
        if (input && input.silent) { calls.silentConnect++; if (!localStorage.getItem(TRUST)) return { accounts: [] }; }
        else calls.connect++;
        localStorage.setItem(TRUST, '1');
        wallet.accounts = [account];
        return { accounts: wallet.accounts };
      } },
      'standard:disconnect': { version: '1.0.0', async disconnect() { wallet.accounts = []; localStorage.removeItem(TRUST); } },
      'standard:events': { version: '1.0.0', on() { return () => {}; } },
      'solana:signMessage': { version: '1.0.0', async signMessage(...inputs) {
        calls.signMessage++;
        return Promise.all(inputs.map(async (input) => ({ signedMessage: input.message, signature: await sign(input.message) })));
      } },
      'solana:signIn': { version: '1.0.0', async signIn(...inputs) {
        calls.signIn++;
        return Promise.all(inputs.map(async (input) => {
          const signedMessage = siwsMessage(input);
          wallet.accounts = [account];
          return { account, signedMessage, signature: await sign(signedMessage) };
        }));
      } },
    },
  };
  const callback = ({ register }) => register(wallet);
  window.addEventListener('wallet-standard:app-ready', (event) => callback(event.detail));
  window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback }));
  window.__standardWallet = { calls, address: cfg.address };
}`;

/** Announces `wallet` under `name` through the Wallet Standard in every page of `context`. */
export async function installStandardWallet(context: BrowserContext, wallet: PageWallet, name: string): Promise<void> {
  const cfg = { address: wallet.address, jwk: wallet.jwk, name };
  await context.addInitScript({ content: `(${STANDARD_SCRIPT})(${JSON.stringify(cfg)});` });
}
