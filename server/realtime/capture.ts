import type { Queryable } from '../db/index.js';

/** The NOTIFY channel that wakes the dispatcher. Its payload is empty: rows travel in realtime.changes. */
export const CHANGES_CHANNEL = 'realtime_changes';

/** Most changes read per drain, so one tick stays short under a burst. */
export const DRAIN_LIMIT = 10000;

/**
 * Embedded-only change capture. Statement triggers copy inserted and deleted rows (from their
 * transition tables) into realtime.changes, a row trigger copies updates with their old row,
 * and each statement sends one empty NOTIFY. Rows of any size go through the table, so a
 * voice clip larger than a NOTIFY payload still arrives whole.
 */
const CAPTURE_SQL = `
create schema if not exists realtime;
revoke all on schema realtime from public;
create or replace function realtime.capture_insert() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into realtime.changes (rel, kind, record) select tg_relid, 'INSERT', to_json(n) from new_rows n;
  perform pg_notify('${CHANGES_CHANNEL}', '');
  return null;
end $$;

create or replace function realtime.capture_delete() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into realtime.changes (rel, kind, old_record) select tg_relid, 'DELETE', to_json(o) from old_rows o;
  perform pg_notify('${CHANGES_CHANNEL}', '');
  return null;
end $$;

create or replace function realtime.capture_update() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into realtime.changes (rel, kind, record, old_record) values (tg_relid, 'UPDATE', to_json(new), to_json(old));
  perform pg_notify('${CHANGES_CHANNEL}', '');
  return null;
end $$;

-- For each check {role, claims, sql, keys}: run sql under that role and claims and return
-- (check index, change index) for every row the role can read. A check whose policies raise
-- is reported once with failed = true and is otherwise ignored.
create or replace function realtime.visible(checks jsonb) returns table (c int, i int, failed boolean)
language plpgsql as $$
declare
  n int;
  chk jsonb;
begin
  for n in 0 .. jsonb_array_length(checks) - 1 loop
    chk := checks -> n;
    begin
      perform set_config('role', chk ->> 'role', true), set_config('request.jwt.claims', chk ->> 'claims', true);
      return query execute chk ->> 'sql' using chk -> 'keys', n;
      perform set_config('role', 'none', true);
    exception when others then
      return query select n, -1, true;
    end;
  end loop;
end $$;
revoke all on function realtime.visible(jsonb) from public;

do $$
declare t record;
begin
  for t in select format('%I.%I', schemaname, tablename) as name from pg_publication_tables where pubname = 'supabase_realtime' loop
    execute format('create or replace trigger realtime_capture_insert after insert on %s referencing new table as new_rows for each statement execute function realtime.capture_insert()', t.name);
    execute format('create or replace trigger realtime_capture_delete after delete on %s referencing old table as old_rows for each statement execute function realtime.capture_delete()', t.name);
    execute format('create or replace trigger realtime_capture_update after update on %s for each row execute function realtime.capture_update()', t.name);
  end loop;
end $$;
`;

/** The capture table, recreated empty at each start: rows captured before it have no subscriber left. */
const CAPTURE_TABLE_SQL = `
create schema if not exists realtime;
drop table if exists realtime.changes;
create unlogged table realtime.changes (
  id bigint generated always as identity primary key,
  rel oid not null,
  kind text not null,
  record json,
  old_record json,
  at timestamptz not null default now()
);
`;

/** One captured row change. `record` and `old` are JSON text, columns in table order. */
export interface Change {
  rel: number;
  kind: 'INSERT' | 'UPDATE' | 'DELETE';
  record: string | null;
  old: string | null;
  /** commit_timestamp as hosted formats it: YYYY-MM-DDTHH:MI:SS.MSZ in UTC. */
  at: string;
}

/** Creates the empty capture table, then {@link captureTables}. */
export async function installCapture(db: Queryable): Promise<void> {
  await db.exec(CAPTURE_TABLE_SQL);
  await captureTables(db);
}

/** (Re)installs the capture triggers on every published table, and the visibility function. */
export async function captureTables(db: Queryable): Promise<void> {
  await db.exec(CAPTURE_SQL);
}

/** Removes and returns the oldest captured changes, in commit order. */
export async function drainChanges(db: Queryable): Promise<Change[]> {
  const { rows } = await db.query<Change>(
    `with d as (
       delete from realtime.changes where id in (select id from realtime.changes order by id limit ${DRAIN_LIMIT})
       returning id, rel, kind, record, old_record, at)
     select rel::int as rel, kind, record::text as record, old_record::text as old,
            to_char(at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
     from d order by id`,
  );
  return rows;
}
