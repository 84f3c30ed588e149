import type { Database, Queryable } from '../db/index.js';

/**
 * Keeps `auth.refresh_tokens` and `auth.sessions` bounded: rotated tokens are kept long enough
 * to catch a stolen copy being reused (which ends its session), then deleted; sessions nobody
 * refreshed for a long time are ended. Run at start and every {@link SESSION_CLEANUP_MS}.
 */

/**
 * Hours a rotated (revoked) refresh token is kept. A signed-in client refreshes about once an
 * hour, so within a day a copy used by someone else is still recognised as reuse.
 */
export const REVOKED_TOKEN_RETENTION_HOURS = 24;
/** Days a session lives without a refresh: its client must sign in again after that. */
export const SESSION_IDLE_DAYS = 30;
/** How often the clean-up runs. */
export const SESSION_CLEANUP_MS = 10 * 60 * 1000;
/** Rows one delete statement removes at most, so that no statement holds locks for long. */
export const CLEANUP_BATCH_ROWS = 1000;
/** Delete statements of each kind one clean-up runs at most; the rest waits for the next run. */
export const CLEANUP_MAX_BATCHES = 20;

/** What one clean-up removed. */
export interface CleanupResult {
  tokens: number;
  sessions: number;
}

async function inBatches(db: Queryable, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < CLEANUP_MAX_BATCHES; batch++) {
    const { rows } = await db.query<{ n: number }>(`with d as (${sql} returning 1) select count(*)::int as n from d`, [...params, CLEANUP_BATCH_ROWS]);
    const removed = rows[0]?.n ?? 0;
    total += removed;
    if (removed < CLEANUP_BATCH_ROWS) break;
  }
  return total;
}

/**
 * Deletes refresh tokens revoked more than {@link REVOKED_TOKEN_RETENTION_HOURS} ago and the
 * sessions (with their tokens) whose active token is older than {@link SESSION_IDLE_DAYS}, in
 * batches of {@link CLEANUP_BATCH_ROWS}. The access tokens of such sessions expired long before,
 * so nothing needs revoking.
 */
export async function cleanUpSessions(db: Queryable): Promise<CleanupResult> {
  const tokens = await inBatches(
    db,
    `delete from auth.refresh_tokens where token in (
       select token from auth.refresh_tokens where revoked_at < now() - make_interval(hours => $1) limit $2)`,
    [REVOKED_TOKEN_RETENTION_HOURS],
  );
  const sessions = await inBatches(
    db,
    `delete from auth.sessions where id in (
       select session_id from auth.refresh_tokens where revoked_at is null and created_at < now() - make_interval(days => $1) limit $2)`,
    [SESSION_IDLE_DAYS],
  );
  return { tokens, sessions };
}

/** Runs {@link cleanUpSessions} now and every {@link SESSION_CLEANUP_MS}; `stop` waits for a run under way. */
export function startSessionCleanup(db: Database, log: (message: string) => void): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = cleanUpSessions(db)
      .then(() => undefined)
      .catch((error: unknown) => log(`auth: removing old refresh tokens failed: ${(error as Error).message}`));
  };
  run();
  const timer = setInterval(run, SESSION_CLEANUP_MS).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
