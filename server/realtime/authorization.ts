import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Claims, Database, Queryable } from '../db/index.js';

/** The kinds of message a row of `realtime.messages` (its `extension` column) authorises. */
export type Extension = 'broadcast' | 'presence';

/**
 * What a write check asks about: sending a broadcast or tracking presence, or `persistence`,
 * storing a broadcast for replay (an insert of a `persistence` row of the topic, as hosted asks).
 */
export type WriteExtension = Extension | 'persistence';

/** What the read policies on `realtime.messages` say about a caller and a topic. */
export interface ReadVerdict {
  /** The caller may receive the topic's broadcasts. */
  broadcast: boolean;
  /** The caller may receive the topic's presence state and changes. */
  presence: boolean;
  /** The caller as the application names senders (ChannelPolicy.senderSql); null when it names none. */
  sender: string | null;
}

/** What the write policies on `realtime.messages` say about a caller's sends. */
export interface SendVerdict {
  /** The topics (of those asked about) the caller may write to. */
  writable: Set<string>;
  /** The topics (of those asked about for persistence) whose broadcasts the caller may store for replay. */
  persistable: Set<string>;
  /** The caller as the application names senders (ChannelPolicy.senderSql); null when it names none. */
  sender: string | null;
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

/** `value` as an SQL string literal. */
const literal = (value: string) => pg.escapeLiteral(value);

/** The select-list expression naming the sender: the application's SQL (see ChannelPolicy.senderSql), or a null. */
const senderColumn = (senderSql: string | null) => `${senderSql ?? 'null::text'} as sender`;

/** One topic's statements of a read check: `realtime.topic` set, then its two rows read back (and the sender, when asked). */
function readBack(topic: string, ids: [string, string], sender: string): string {
  return `select set_config('realtime.topic', ${literal(topic)}, true);
     select exists (select from realtime.messages where id = ${ids[0]}) as broadcast,
            exists (select from realtime.messages where id = ${ids[1]}) as presence${sender}`;
}

/**
 * Evaluates the SELECT policies of `realtime.messages` for each of `topics` (without the
 * `realtime:` prefix) under the caller's role and claims, as hosted Realtime Authorization does
 * on join: a broadcast and a presence row of each topic are written as the owner, then, topic by
 * topic, read back as the caller with `realtime.topic` set to that topic; each row the caller
 * sees grants reading that extension. The caller is named with `senderSql` once, at the first
 * topic (it depends on the claims alone, as in {@link authorizeSends}). One transaction in one
 * round trip, rolled back; it fails as a whole when a statement fails. Resolves to the verdict
 * of each topic, in order.
 */
export async function authorizeReads(db: Database, claims: Claims, topics: readonly string[], senderSql: string | null): Promise<ReadVerdict[]> {
  const ids = topics.map((): [string, string] => [literal(randomUUID()), literal(randomUUID())]);
  const rows = topics.map((topic, i) => `(${ids[i]![0]}, ${literal(topic)}, 'broadcast', true), (${ids[i]![1]}, ${literal(topic)}, 'presence', true)`);
  const reads = topics.map((topic, i) => readBack(topic, ids[i]!, i === 0 ? `, ${senderColumn(senderSql)}` : ''));
  const results = await db.checkWithClaims<ReadVerdict>(
    claims,
    `select set_config('role', 'none', true);
     insert into realtime.messages (id, topic, extension, private) values ${rows.join(', ')};
     select set_config('role', ${literal(claims.role)}, true);
     ${reads.join(';\n')}`,
  );
  // Each topic's read-back is the second of its two statements, which end the script.
  const verdicts = results.slice(-2 * topics.length).filter((_, i) => i % 2 === 1).map((result) => result.rows[0]!);
  const sender = verdicts[0]?.sender ?? null;
  return verdicts.map(({ broadcast, presence }) => ({ broadcast, presence, sender }));
}

/** Whether the caller may insert a message of `extension` on `topic`, asked of `realtime.may_write` (messages.ts) in `tx`. */
async function mayInsert(tx: Queryable, topic: string, extension: WriteExtension): Promise<boolean> {
  const { rows } = await tx.query<{ allowed: boolean }>('select realtime.may_write($1, $2) as allowed', [topic, extension]);
  return rows[0]!.allowed;
}

/** One write check: a caller (its claims), a topic (without `realtime:`) and what it would write there. */
export interface WriteCheck {
  claims: Claims;
  topic: string;
  extension: WriteExtension;
}

/**
 * Evaluates the INSERT policies of `realtime.messages` for each check, as hosted does on a
 * private channel's first send, track or persisted send: the caller may write if its insert of a
 * message of `extension` on `topic` is not refused for lack of privilege. The checks may be of
 * different callers: each runs under its own role and claims, in `realtime.may_write`
 * (messages.ts), which undoes its insert and answers a refusal as false. One transaction in one
 * round trip, rolled back; it fails as a whole when a policy fails otherwise. Resolves to each
 * check's verdict, in order.
 */
export async function authorizeWrites(db: Database, checks: readonly WriteCheck[]): Promise<boolean[]> {
  const statements = checks.map(
    ({ claims, topic, extension }) =>
      `select set_config('role', ${literal(claims.role)}, true), set_config('request.jwt.claims', ${literal(JSON.stringify(claims))}, true);
     select realtime.may_write(${literal(topic)}, ${literal(extension)}) as allowed`,
  );
  const results = await db.checkWithClaims<{ allowed: boolean }>(checks[0]!.claims, statements.join(';\n'));
  // Each check's verdict is the second of its two statements.
  return results.filter((_, i) => i % 2 === 1).map((result) => result.rows[0]!.allowed);
}

/**
 * The write verdict of a REST broadcast request: the caller as `senderSql` names it, which of `topics`
 * (private broadcasts) the INSERT policies of `realtime.messages` let it write to, and which of
 * `persistTopics` (of those) it may store broadcasts of. One transaction for all topics, rolled back.
 */
export function authorizeSends(
  db: Database,
  claims: Claims,
  senderSql: string | null,
  topics: Iterable<string>,
  persistTopics: Iterable<string> = [],
): Promise<SendVerdict> {
  return rolledBack(db, claims, async (tx) => {
    const { rows } = await tx.query<{ sender: string | null }>(`select ${senderColumn(senderSql)}`);
    const writable = new Set<string>();
    for (const topic of topics) if (await mayInsert(tx, topic, 'broadcast')) writable.add(topic);
    const persistable = new Set<string>();
    for (const topic of persistTopics) if (writable.has(topic) && (await mayInsert(tx, topic, 'persistence'))) persistable.add(topic);
    return { writable, persistable, sender: rows[0]!.sender };
  });
}
