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

let pending: Promise<SupabaseClient> | null = null;

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
 * The shared Supabase client. The first call fetches `/config.json`; later calls reuse the
 * same client. A failed attempt is forgotten so that the next call tries again.
 */
export function getSupabase(): Promise<SupabaseClient> {
  pending ??= loadConfig()
    .then(({ supabaseUrl, supabaseAnonKey }) =>
      createClient(new URL(supabaseUrl, window.location.origin).href, supabaseAnonKey),
    )
    .catch((error: unknown) => {
      pending = null;
      throw error;
    });
  return pending;
}
