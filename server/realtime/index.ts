import type { Server } from 'node:http';

/** Claims of a verified JWT, as Realtime needs them: `role` and `exp` at least. */
export interface RealtimeClaims {
  role: string;
  exp: number;
  [claim: string]: unknown;
}

/** What Realtime needs from the server: the database, token verification and the anon key. */
export interface RealtimeDeps {
  db: unknown;
  verifyToken(token: string): Promise<RealtimeClaims>;
  anonKey: string;
}

/**
 * Serves Supabase Realtime on `/realtime/v1/websocket` of `server`: postgres_changes under
 * RLS and broadcast. Resolves once change capture is installed.
 */
export async function attachRealtime(server: Server, deps: RealtimeDeps): Promise<{ close(): Promise<void> }> {
  void server;
  void deps;
  return { close: async () => {} };
}
