import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getBase58Decoder } from '@solana/web3.js';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';

/** The built server the tests start; TESSERA_SERVER overrides `dist/server.mjs`. */
export const SERVER_ENTRY = process.env.TESSERA_SERVER ?? 'dist/server.mjs';

/** A server child process on a random port with its own DATA_DIR. */
export interface TestServer {
  url: string;
  anonKey: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash), then waits for the exit. */
  kill(): Promise<void>;
}

/** A fresh temporary DATA_DIR; remove it with {@link removeDataDir}. */
export function makeDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'tessera-test-'));
}

/** Deletes a DATA_DIR made by {@link makeDataDir}. */
export function removeDataDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/**
 * Runs `node <SERVER_ENTRY>` with PORT=0 and DATA_DIR=`dataDir` (a new temporary one if not given)
 * and resolves once it printed its start line. Rejects with the output if it exits first.
 */
export async function startTestServer(dataDir?: string): Promise<TestServer> {
  const dir = dataDir ?? (await makeDataDir());
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    env: { ...process.env, PORT: '0', DATA_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(log);
      if (match) {
        child.stdout!.off('data', onData);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${log}`)));
  });
  const config = (await (await fetch(`${url}/config.json`)).json()) as { supabaseAnonKey: string };
  return {
    url,
    anonKey: config.supabaseAnonKey,
    dataDir: dir,
    child,
    output: () => log,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A supabase-js client for `server` as the browser app makes it, with the ws transport for Node 20. */
export function createTestClient(server: Pick<TestServer, 'url' | 'anonKey'>): SupabaseClient {
  return createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });
}

/** A Solana wallet backed by a real ed25519 key, with the interface auth-js calls. */
export interface TestWallet {
  address: string;
  publicKey: { toBase58(): string };
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

/** Makes a wallet with a fresh ed25519 key pair. */
export function createTestWallet(): TestWallet {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const address = getBase58Decoder().decode(raw);
  return walletFor(address, privateKey);
}

function walletFor(address: string, privateKey: KeyObject): TestWallet {
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
 * app does, and returns the signed-in client. Throws if sign-in fails.
 */
export async function signInPlayer(server: Pick<TestServer, 'url' | 'anonKey'>, wallet = createTestWallet()): Promise<TestPlayer> {
  const client = createTestClient(server);
  const { error } = await client.auth.signInWithWeb3({
    chain: 'solana',
    wallet,
    statement: 'Sign in to Tessera',
    options: { url: server.url },
  });
  if (error) throw error;
  return { client, wallet, address: wallet.address };
}
