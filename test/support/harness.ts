import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { getBase58Decoder } from '@solana/web3.js';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { reconnectAfterMs } from '../../net/client.js';
import WebSocket from 'ws';
import { connectAsOperator, makeDataDir, readServiceRoleKey, startServer, type TestServer } from './server.js';

export { makeDataDir, postmasterPid, removeDataDir, SERVER_ENTRY, TEST_RATE_LIMIT_WEB3, type TestServer } from './server.js';

/**
 * The built server on its own DATA_DIR (a new temporary one, removed by `stop()`, when
 * `dataDir` is not given) with `env` on top: {@link startServer} for the server tests.
 */
export function startTestServer(dataDir?: string, env: Record<string, string> = {}): Promise<TestServer> {
  return startServer({ dataDir, env });
}

/**
 * A server on a new DATA_DIR whose database first ran `sql` as the superuser (probe tables and
 * functions a suite reads), then restarted with `env` so that it starts on that schema. Its
 * DATA_DIR stays after `stop()`: remove it with {@link removeDataDir}.
 */
export async function startTestServerAfter(sql: string, env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = await makeDataDir();
  const setup = await startTestServer(dataDir);
  const operator = await connectAsOperator(setup);
  await operator.query(sql);
  await operator.end();
  await setup.stop();
  return startTestServer(dataDir, env);
}

/** What a test may put between a client and the server: its HTTP requests and its socket. */
export interface ClientWiring {
  fetch?: typeof fetch;
  transport?: typeof WebSocket;
}

/** A supabase-js client for `server` as the browser app makes it, with the ws transport for Node 20 (or `wiring`'s). */
export function createTestClient(server: Pick<TestServer, 'url' | 'anonKey'>, wiring: ClientWiring = {}): SupabaseClient {
  return createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: (wiring.transport ?? WebSocket) as never, reconnectAfterMs },
    ...(wiring.fetch ? { global: { fetch: wiring.fetch } } : {}),
  });
}

/** A supabase-js client for `server` with its service_role key ({@link readServiceRoleKey}) instead of the anon key. */
export async function createServiceClient(server: Pick<TestServer, 'url' | 'dataDir'>): Promise<SupabaseClient> {
  return createTestClient({ url: server.url, anonKey: await readServiceRoleKey(server) });
}

/** A Solana wallet backed by a real ed25519 key, with the interface auth-js calls. */
export interface TestWallet {
  address: string;
  publicKey: { toBase58(): string };
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

/** A fresh ed25519 key pair as a Solana wallet holds it: its address (the public key in base58) and its private key. */
export function createWalletKey(): { address: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { address: getBase58Decoder().decode(raw), privateKey };
}

/** Makes a wallet that signs in Node with a fresh key ({@link createWalletKey}). */
export function createTestWallet(): TestWallet {
  const { address, privateKey } = createWalletKey();
  return {
    address,
    publicKey: { toBase58: () => address },
    signMessage: async (message) => new Uint8Array(sign(null, message, privateKey)),
  };
}

/** A signed-in player: its client, wallet and wallet address. */
export interface TestPlayer {
  client: SupabaseClient;
  wallet: TestWallet;
  address: string;
}

/**
 * Signs a new (or the given) wallet in through `supabase.auth.signInWithWeb3`, exactly as the
 * app does (the message names the server's SITE_URL when it has one), and returns the
 * signed-in client. Throws if sign-in fails.
 */
export async function signInPlayer(server: Pick<TestServer, 'url' | 'anonKey' | 'siteUrl'>, wallet = createTestWallet(), wiring: ClientWiring = {}): Promise<TestPlayer> {
  const client = createTestClient(server, wiring);
  const { error } = await client.auth.signInWithWeb3({
    chain: 'solana',
    wallet,
    statement: 'Sign in to Tessera',
    options: { url: server.siteUrl ?? server.url },
  });
  if (error) throw error;
  return { client, wallet, address: wallet.address };
}
