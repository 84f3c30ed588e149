import type { Queryable } from '../db/index.js';
import {
  MAX_BROADCAST_BYTES,
  MAX_DATABASE_BROADCASTS_PER_STATEMENT,
  MAX_REPLAY_MESSAGES,
  MAX_STORED_MESSAGES,
  MESSAGE_RETENTION_HOURS,
  UNREPLAYABLE_RETENTION_SECONDS,
} from './limits.js';
import type { Broadcast } from './protocol.js';

/** The NOTIFY channel that wakes the database broadcast lane. Its payload is empty: messages travel in realtime.broadcasts. */
export const BROADCASTS_CHANNEL = 'realtime_broadcasts';

/** Most messages read per drain of the broadcast lane. */
export const BROADCAST_DRAIN_LIMIT = 10_000;

/** The rows of realtime.messages Realtime broadcasts, as hosted's replication handler takes them: an event, a privacy and a payload. */
const DELIVERABLE = 'm.event is not null and m.private is not null and (m.payload is not null or m.binary_payload is not null)';

/**
 * Embedded-only: how inserts into realtime.messages reach the members of their topic.
 *
 * Hosted streams the table by logical replication. Here a statement trigger copies the inserted
 * rows into realtime.broadcasts, a queue of their own apart from the changes postgres_changes
 * drains (capture.ts), woken by a NOTIFY of its own and drained by a lane of its own (lane.ts),
 * so a backlog of row changes never holds up a broadcast, nor the reverse. Each copy holds what delivery needs: id, topic, event, privacy,
 * the payload's size and the payload itself only when it is within the broadcast limit, so an
 * oversized payload never leaves the database. At most MAX_DATABASE_BROADCASTS_PER_STATEMENT
 * rows of one statement are copied; a marker row `{"dropped": n}` tells the server how many
 * more there were. Rows the server stores itself for replay (`persist`, already delivered) are
 * inserted with `realtime.skip_broadcast` set and are not copied.
 *
 * `realtime.may_write` answers the write checks of private channels (authorization.ts).
 *
 * The indexes serve the replay query (newest rows of a private topic) and the pruning by age.
 */
const MESSAGES_SQL = `
create unlogged table if not exists realtime.broadcasts (
  id bigint generated always as identity primary key,
  record json not null
);
create or replace function realtime.capture_messages() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  captured int;
  total int;
begin
  if current_setting('realtime.skip_broadcast', true) = 'on' then
    return null;
  end if;
  insert into realtime.broadcasts (record)
    select json_build_object(
      'id', m.id, 'topic', m.topic, 'event', m.event, 'private', m.private,
      'bytes', coalesce(octet_length(m.payload::text), octet_length(m.binary_payload)),
      'payload', case when octet_length(m.payload::text) <= ${MAX_BROADCAST_BYTES} then m.payload end,
      'binary', case when m.payload is null and octet_length(m.binary_payload) <= ${MAX_BROADCAST_BYTES}
                     then encode(m.binary_payload, 'base64') end)
    from new_rows m
    where ${DELIVERABLE}
    limit ${MAX_DATABASE_BROADCASTS_PER_STATEMENT};
  get diagnostics captured = row_count;
  if captured = 0 then
    return null;
  end if;
  if captured = ${MAX_DATABASE_BROADCASTS_PER_STATEMENT} then
    select count(*) into total from new_rows m where ${DELIVERABLE};
    if total > captured then
      insert into realtime.broadcasts (record) values (json_build_object('dropped', total - captured));
    end if;
  end if;
  perform pg_notify('${BROADCASTS_CHANNEL}', '');
  return null;
end $$;
revoke all on function realtime.capture_messages() from public;
-- Removes the oldest captured messages (at most max_messages) and returns them in commit order:
-- each row's id, its record, and whether it is a statement's marker ({"dropped": n}).
-- A drain from before messages carried their id returns other columns: replaced once.
do $$
begin
  if exists (select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace
             where n.nspname = 'realtime' and p.proname = 'drain_broadcasts' and not ('id' = any (p.proargnames))) then
    drop function realtime.drain_broadcasts(int);
  end if;
end $$;
create or replace function realtime.drain_broadcasts(max_messages int)
returns table (id bigint, record text, marker boolean)
language sql as $$
  with d as (
    delete from realtime.broadcasts where id in (select b.id from realtime.broadcasts b order by b.id limit max_messages)
    returning id, record)
  select d.id, d.record::text, d.record ->> 'dropped' is not null from d order by d.id
$$;
revoke all on function realtime.drain_broadcasts(int) from public;
create or replace trigger realtime_capture_messages after insert on realtime.messages
  referencing new table as new_rows for each statement execute function realtime.capture_messages();

create or replace function realtime.store_broadcast(message_topic text, message_event text, message_payload jsonb, message_binary bytea)
returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  stored uuid;
begin
  perform set_config('realtime.skip_broadcast', 'on', true);
  insert into realtime.messages (topic, extension, event, payload, binary_payload, private)
    values (message_topic, 'broadcast', message_event, message_payload, message_binary, true)
    returning id into stored;
  perform set_config('realtime.skip_broadcast', '', true);
  return stored;
end $$;
revoke all on function realtime.store_broadcast(text, text, jsonb, bytea) from public;

-- A write check (authorization.ts): whether the current role and claims may insert a message of
-- message_extension on message_topic. The insert is undone by the exception that ends it, so
-- checks of many callers can share one transaction.
create or replace function realtime.may_write(message_topic text, message_extension text) returns boolean
language plpgsql set search_path = '' as $$
begin
  perform set_config('realtime.topic', message_topic, true);
  insert into realtime.messages (topic, extension, private) values (message_topic, message_extension, true);
  raise sqlstate 'RTW01';
exception
  when sqlstate 'RTW01' then return true;
  when insufficient_privilege then return false;
end $$;
grant execute on function realtime.may_write(text, text) to anon, authenticated, service_role;

create index if not exists realtime_messages_replay on realtime.messages (topic, inserted_at)
  where extension = 'broadcast' and private is true;
create index if not exists realtime_messages_inserted_at on realtime.messages (inserted_at);
`;

/** Installs the capture of realtime.messages inserts, the store and write-check functions and the indexes (see {@link MESSAGES_SQL}). */
export async function installMessages(db: Queryable): Promise<void> {
  await db.exec(MESSAGES_SQL);
}

/** A message of realtime.messages as the capture trigger hands it over. */
export interface CapturedMessage {
  id: string;
  /** The topic without `realtime:`. */
  topic: string;
  event: string;
  private: boolean;
  /** Bytes of the payload's JSON text, or of the binary payload. */
  bytes: number;
  /** The payload (bytes when `binary`); absent when it was over the limit and left in the database. */
  payload: Broadcast['payload'];
  binary: boolean;
  /** The payload is over the broadcast limit: it is not delivered. */
  oversized: boolean;
}

/** What one captured record says: a message, or how many messages of one statement were not captured. */
export type Captured = { message: CapturedMessage } | { dropped: number };

/** One drained row of realtime.broadcasts: its id, its record (for {@link readCaptured}) and whether it is a statement's marker. */
export interface DrainedBroadcast {
  id: number;
  record: string;
  marker: boolean;
}

/**
 * Removes the oldest captured messages (at most {@link BROADCAST_DRAIN_LIMIT}) and returns them
 * in commit order.
 */
export async function drainBroadcasts(db: Queryable): Promise<DrainedBroadcast[]> {
  const { rows } = await db.query<{ id: string; record: string; marker: boolean }>('select id, record, marker from realtime.drain_broadcasts($1)', [BROADCAST_DRAIN_LIMIT]);
  return rows.map((row) => ({ id: Number(row.id), record: row.record, marker: row.marker }));
}

/** Reads a record the capture trigger wrote (the `record` JSON text of a realtime.broadcasts row). */
export function readCaptured(record: string): Captured {
  const row = JSON.parse(record) as {
    dropped?: number;
    id: string;
    topic: string;
    event: string;
    private: boolean;
    bytes: number;
    payload: unknown;
    binary: string | null;
  };
  if (row.dropped !== undefined) return { dropped: row.dropped };
  const binary = row.payload === null && row.binary !== null;
  const payload = binary ? Buffer.from(row.binary!, 'base64') : row.payload;
  return {
    message: { id: row.id, topic: row.topic, event: row.event, private: row.private, bytes: row.bytes, payload, binary, oversized: row.bytes > MAX_BROADCAST_BYTES },
  };
}

/**
 * Stores a broadcast for replay as hosted's persistence does (a private `broadcast` row of the
 * topic, written as the owner once the sender's policies allowed it) and returns its id. The row
 * is marked as already delivered, so the capture does not broadcast it again.
 */
export async function storeBroadcast(db: Queryable, topic: string, item: Broadcast): Promise<string> {
  const json = item.binary ? null : JSON.stringify(item.payload ?? {});
  const bytes = item.binary ? (item.payload as Buffer) : null;
  const { rows } = await db.query<{ id: string }>('select realtime.store_broadcast($1, $2, $3::jsonb, $4) as id', [topic, item.event, json, bytes]);
  return rows[0]!.id;
}

/**
 * The stored messages a join with `replay: {since, limit}` receives, as hosted's replay reads
 * them: private `broadcast` rows of `topic` (without `realtime:`) inserted at or after `since`
 * (milliseconds since the epoch) and before a minute from now, the newest `limit` (clamped to
 * 1..{@link MAX_REPLAY_MESSAGES}), oldest first. Rows over the broadcast limit are left out.
 */
export async function readReplay(db: Queryable, topic: string, since: number, limit: number): Promise<Broadcast[]> {
  const count = Math.max(Math.min(limit, MAX_REPLAY_MESSAGES), 1);
  const { rows } = await db.query<{ id: string; event: string; payload: string | null; binary: Buffer | null }>(
    `select m.id::text as id, m.event, m.payload::text as payload, m.binary_payload as binary
       from realtime.messages m
      where m.topic = $1 and m.private is true and m.extension = 'broadcast'
        and m.inserted_at >= to_timestamp($2::float8 / 1000)::timestamp
        and m.inserted_at < localtimestamp + interval '1 minute'
        and ${DELIVERABLE}
        and coalesce(octet_length(m.payload::text), octet_length(m.binary_payload)) <= $4
      order by m.inserted_at desc
      limit $3`,
    [topic, since, count, MAX_BROADCAST_BYTES],
  );
  return rows.reverse().map((row) => {
    const binary = row.payload === null;
    return { event: row.event, payload: binary ? row.binary : JSON.parse(row.payload!), binary, meta: { id: row.id, replayed: true } };
  });
}

/**
 * Removes realtime.messages rows past their retention: replayable ones (private broadcasts)
 * after {@link MESSAGE_RETENTION_HOURS}, the others (which no join can replay) after
 * {@link UNREPLAYABLE_RETENTION_SECONDS}, and the oldest beyond {@link MAX_STORED_MESSAGES}.
 * Returns how many rows went.
 */
export async function pruneMessages(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ removed: number }>(
    `with cutoff as (
       select m.inserted_at from realtime.messages m order by m.inserted_at desc offset $3 limit 1),
     removed as (
       delete from realtime.messages m
        where m.inserted_at < localtimestamp - make_interval(hours => $1)
           or (not (m.extension = 'broadcast' and m.private is true) and m.inserted_at < localtimestamp - make_interval(secs => $2))
           or m.inserted_at <= (select inserted_at from cutoff)
        returning 1)
     select count(*)::int as removed from removed`,
    [MESSAGE_RETENTION_HOURS, UNREPLAYABLE_RETENTION_SECONDS, MAX_STORED_MESSAGES],
  );
  return rows[0]!.removed;
}
