/**
 * The one Supabase client of the browser app, created on first use from `/config.json`.
 * The same code talks to the embedded server or to a hosted project; only the config differs.
 */
import { createClient, type SupabaseClient } from '@supabase/supabase-js';

/** What `/config.json` holds. */
export interface ClientConfig {
  supabaseUrl: string;
  supabaseAnonKey: string;
}

/** Base waits before the first tries of the live socket after a drop, in ms; later tries wait the last. */
const RECONNECT_STEPS_MS = [200, 500, 1000];

/**
 * How long the live socket waits before try `tries` (from 1) after it dropped: quick at first and
 * at most 1.25 s apart, each wait spread by a random quarter either way so that the players of a
 * restarted server do not all come back in the same instant. supabase-js's own steps reach 10 s,
 * too slow to be back in the world within 5 s of the server answering again; a try costs a
 * refused TCP connection while the server is away.
 */
export function reconnectAfterMs(tries: number): number {
  const base = RECONNECT_STEPS_MS[Math.min(tries, RECONNECT_STEPS_MS.length) - 1] ?? RECONNECT_STEPS_MS[0]!;
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

let pendingConfig: Promise<ClientConfig> | null = null;
let pendingClient: Promise<SupabaseClient> | null = null;

async function loadConfig(): Promise<ClientConfig> {
  const response = await fetch('/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`GET /config.json failed with ${response.status}`);
  const config = (await response.json()) as Partial<ClientConfig>;
  if (typeof config.supabaseUrl !== 'string' || typeof config.supabaseAnonKey !== 'string') {
    throw new Error('config.json lacks supabaseUrl or supabaseAnonKey');
  }
  return { supabaseUrl: config.supabaseUrl, supabaseAnonKey: config.supabaseAnonKey };
}

/**
 * The backend's URL (absolute) and public key from `/config.json`, fetched once. A failed
 * attempt is forgotten so that the next call tries again.
 */
export function getClientConfig(): Promise<ClientConfig> {
  pendingConfig ??= loadConfig()
    .then((config) => ({ ...config, supabaseUrl: new URL(config.supabaseUrl, window.location.origin).href }))
    .catch((error: unknown) => {
      pendingConfig = null;
      throw error;
    });
  return pendingConfig;
}

/** The shared Supabase client, created on first use; later calls reuse it. */
export function getSupabase(): Promise<SupabaseClient> {
  pendingClient ??= getClientConfig()
    .then(({ supabaseUrl, supabaseAnonKey }) => createClient(supabaseUrl, supabaseAnonKey, { realtime: { reconnectAfterMs } }))
    .catch((error: unknown) => {
      pendingClient = null;
      throw error;
    });
  return pendingClient;
}
