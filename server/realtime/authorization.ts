import { randomUUID } from 'node:crypto';
import type { Claims, Database, Queryable } from '../db/index.js';

/** What the read policies on `realtime.messages` say about a caller and a topic. */
export interface ReadVerdict {
  /** The caller may receive broadcast or presence messages of the topic. */
  allowed: boolean;
  /** The caller's wallet (public.wallet_address()), which its broadcasts are stamped with; null without one. */
  wallet: string | null;
}

/** Carries a check's answer out of its transaction, which is then rolled back. */
class Answer<T> extends Error {
  constructor(readonly value: T) {
    super('authorization check finished');
  }
}

async function rolledBack<T>(db: Database, claims: Claims, check: (tx: Queryable) => Promise<T>): Promise<T> {
  try {
    await db.withClaims(claims, async (tx) => {
      throw new Answer(await check(tx));
    });
  } catch (error) {
    if (error instanceof Answer) return error.value as T;
    throw error;
  }
  throw new Error('unreachable: the check always answers');
}

/**
 * Evaluates the SELECT policies of `realtime.messages` for `topic` (without the `realtime:`
 * prefix) under the caller's role and claims, as hosted Realtime Authorization does on join: a
 * broadcast and a presence row of the topic are written as the owner, then read back as the
 * caller with `realtime.topic` set; the caller may read if it sees either. One transaction,
 * rolled back.
 */
export function authorizeRead(db: Database, claims: Claims, topic: string): Promise<ReadVerdict> {
  return rolledBack(db, claims, async (tx) => {
    const probes = [randomUUID(), randomUUID()];
    await tx.query(`select set_config('role', 'none', true)`);
    await tx.query(
      `insert into realtime.messages (id, topic, extension, private) values ($1, $3, 'broadcast', true), ($2, $3, 'presence', true)`,
      [...probes, topic],
    );
    await tx.query(`select set_config('role', $1, true), set_config('realtime.topic', $2, true)`, [claims.role, topic]);
    const { rows } = await tx.query<{ seen: number; wallet: string | null }>(
      `select (select count(*) from realtime.messages where id = any($1::uuid[]))::int as seen, public.wallet_address() as wallet`,
      [probes],
    );
    return { allowed: rows[0].seen > 0, wallet: rows[0].wallet };
  });
}

/**
 * Evaluates the INSERT policies of `realtime.messages` for a broadcast on `topic` under the
 * caller's role and claims, as hosted does on a private channel's first send: the caller may
 * write if the insert is not refused for lack of privilege. One transaction, rolled back.
 */
export function authorizeWrite(db: Database, claims: Claims, topic: string): Promise<boolean> {
  return rolledBack(db, claims, async (tx) => {
    await tx.query(`select set_config('realtime.topic', $1, true)`, [topic]);
    try {
      await tx.query(`insert into realtime.messages (topic, extension, private) values ($1, 'broadcast', true)`, [topic]);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '42501') return false;
      throw error;
    }
  });
}
