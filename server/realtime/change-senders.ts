/**
 * Row changes count against their writer's message budget: a change one sender's write caused
 * reaches postgres_changes subscribers no faster than that sender's broadcasts could
 * (MAX_SENDER_MESSAGES_PER_SECOND, the one budget both share). The capture records the writer
 * of each captured statement as the application names senders (ChannelPolicy.senderSql); a
 * change with no named writer (service_role, the server's own chores) takes no token.
 */
import type { Queryable } from '../db/index.js';
import type { Change } from './capture.js';
import { SHED_REPORT_MS } from './limits.js';

/** The sender of a write when the application names none: the JWT's subject, as the REST broadcast API keys it. */
const SUBJECT_SENDER_SQL = `'sub:' || (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')`;

/**
 * Installs realtime.change_sender(), which the capture triggers call once per statement: the
 * writer as `senderSql` names it under the writer's own claims, or its JWT subject when null.
 */
export async function installChangeSender(db: Queryable, senderSql: string | null): Promise<void> {
  await db.exec(`
create schema if not exists realtime;
create or replace function realtime.change_sender() returns text
language plpgsql stable set search_path = '' as $$
begin
  return ${senderSql ?? SUBJECT_SENDER_SQL};
end $$;
revoke all on function realtime.change_sender() from public;
`);
}

/**
 * Admits each change a subscriber would be sent while its writer's budget lasts. `take` takes
 * one message from a sender's budget (false when spent); a change past it is dropped for every
 * subscriber. `log` hears how many were dropped once the drain that began dropping is done, then
 * at most every SHED_REPORT_MS while dropping goes on.
 */
export function createChangeAdmission(take: (sender: string) => boolean, log: (message: string) => void): (change: Change) => boolean {
  let dropped = 0;
  let reportedAt = -Infinity;
  let reporting = false;
  const report = () => {
    log(`realtime: dropped ${dropped} row changes past their writers' message budgets`);
    dropped = 0;
    reporting = false;
  };
  return (change) => {
    if (change.sender === null || take(change.sender)) return true;
    dropped += 1;
    const now = performance.now();
    if (!reporting && now - reportedAt >= SHED_REPORT_MS) {
      reporting = true;
      reportedAt = now;
      // After the rest of this drain's changes, so one line counts them all.
      setImmediate(report);
    }
    return false;
  };
}
