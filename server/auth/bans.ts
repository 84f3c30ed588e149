import type { Database, Queryable } from '../db/index.js';
import { AuthError } from './errors.js';
import type { Revocations } from './revocations.js';
import { endSessions } from './users.js';

/** The NOTIFY channel the database sends a wallet's address on when it is banned from play. */
export const BANS_CHANNEL = 'tessera_bans';

/** The sentence a banned wallet's sign-in is refused with: the reason and when the ban ends. */
export function banMessage(reason: string, until: Date | null): string {
  return until === null
    ? `This wallet is banned from play: ${reason}. The ban does not end.`
    : `This wallet is banned from play until ${until.toISOString()}: ${reason}.`;
}

/**
 * Throws 403 `user_banned` (GoTrue's code for a banned user) when `wallet` has an active play
 * ban (public.game_bans, scope play, no end or an end in the future).
 */
export async function refuseBanned(db: Queryable, wallet: string): Promise<void> {
  const { rows } = await db.query<{ reason: string; until: Date | string | null }>(
    `select reason, until from public.game_bans
     where player_id = $1 and scope = 'play' and (until is null or until > now())`,
    [wallet],
  );
  const ban = rows[0];
  if (ban) throw new AuthError(403, 'user_banned', banMessage(ban.reason, ban.until === null ? null : new Date(ban.until)));
}

/**
 * Ends every session of each wallet the database bans from play, as it is banned: the
 * sessions' tokens are refused from then on and Realtime closes their channels (through
 * `revocations`). Sessions of wallets banned while the server was down end at once. Resolves
 * to a function that stops listening.
 */
export async function watchBans(db: Database, revocations: Revocations, log: (message: string) => void): Promise<() => Promise<void>> {
  const { rows } = await db.query<{ player_id: string }>(
    `select player_id from public.game_bans where scope = 'play' and (until is null or until > now())`,
  );
  for (const { player_id: wallet } of rows) revocations.add(await endWalletSessions(db, wallet));
  return db.listen(BANS_CHANNEL, (wallet) => {
    void endWalletSessions(db, wallet).then(
      (ended) => revocations.add(ended),
      (error: unknown) => log(`bans: ending the sessions of ${wallet} failed: ${(error as Error).message}`),
    );
  });
}

async function endWalletSessions(db: Database, wallet: string): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `select user_id from auth.identities where provider = 'web3' and provider_id = $1`,
    [`web3:solana:${wallet}`],
  );
  const ended: string[] = [];
  for (const { user_id: userId } of rows) ended.push(...(await endSessions(db, userId, '', 'global')));
  return ended;
}
