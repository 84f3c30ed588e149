/**
 * Leaving while the page closes: the presence row is deleted by a keep-alive request, which
 * outlives the page. It cannot wait for the client to read its token, so the token the client
 * holds is followed as it changes.
 */
import type { SupabaseClient } from '@supabase/supabase-js';

/** The access token the client holds, followed as it changes. */
export interface AccessToken {
  /** The player's session token, or the public key when signed out. */
  current(): string;
  stop(): void;
}

/** Follows the access token of `db`; `anonKey` until a session is told. */
export function followAccessToken(db: SupabaseClient, anonKey: string): AccessToken {
  let token = anonKey;
  const { data } = db.auth.onAuthStateChange((_event, session) => {
    token = session?.access_token ?? anonKey;
  });
  return { current: () => token, stop: () => data.subscription.unsubscribe() };
}

/** Best-effort removal of `playerId`'s presence row from the backend at `url` while the page is closing. */
export function deletePresenceOnPageClose(url: string, anonKey: string, accessToken: string, playerId: string): void {
  void fetch(`${url.replace(/\/$/, '')}/rest/v1/game_players?player_id=eq.${encodeURIComponent(playerId)}`, {
    method: 'DELETE',
    keepalive: true,
    headers: { apikey: anonKey, Authorization: `Bearer ${accessToken}` },
  }).catch(() => undefined);
}
