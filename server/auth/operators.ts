import type { Database } from '../db/index.js';

/**
 * Makes `wallets` (OPERATOR_WALLETS) the operators listed from the environment: adds the new
 * ones and removes env-listed ones no longer named. Operators added by hand with SQL (source
 * 'sql') are kept.
 */
export async function syncOperators(db: Database, wallets: readonly string[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`delete from game_private.operators where source = 'env' and player_id <> all($1::text[])`, [wallets]);
    await tx.query(
      `insert into game_private.operators (player_id, source) select unnest($1::text[]), 'env' on conflict (player_id) do nothing`,
      [wallets],
    );
  });
}

/** `OPERATOR_WALLETS`: wallet addresses separated by commas (blanks ignored). */
export function operatorList(value: string | undefined): string[] {
  return [...new Set((value ?? '').split(',').map((wallet) => wallet.trim()).filter((wallet) => wallet !== ''))];
}
