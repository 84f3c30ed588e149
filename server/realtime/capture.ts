import type { Queryable } from '../db/index.js';
import { UPDATES_PAYLOAD } from './lane.js';
import { MAX_CHANGES_PER_STATEMENT } from './limits.js';

/**
 * The NOTIFY channel that wakes the dispatcher. Rows travel in realtime.changes; the payload is
 * empty, or UPDATES_PAYLOAD after a statement that only updated rows (lane.ts: those may wait).
 */
export const CHANGES_CHANNEL = 'realtime_changes';

/** The `kind` of a marker row counting the changes of one statement past MAX_CHANGES_PER_STATEMENT. */
export const DROPPED_KIND = 'DROPPED';

/** Most changes read per drain, so one tick stays short under a burst. */
export const DRAIN_LIMIT = 10000;

/**
 * Embedded-only change capture. Statement triggers copy inserted and deleted rows (from their
 * transition tables) into realtime.changes, a row trigger copies updates with their old row,
 * and each statement that captured a change sends one NOTIFY. Rows of any size go through the table, so a
 * voice clip larger than a NOTIFY payload still arrives whole.
 *
 * Only the tables someone follows are captured: a table's triggers do nothing unless its oid is
 * in realtime.subscribed, which the server keeps in step with the postgres_changes bindings
 * present (subscribed-tables.ts). At most MAX_CHANGES_PER_STATEMENT changes of one statement
 * are captured; the rest are counted in one marker row of kind `DROPPED`, record
 * `{"dropped": n}`, which the dispatcher counts and logs. Updates are captured row by row, so
 * their count is kept in a transaction setting per table, reset by a statement trigger that
 * writes the marker. An update statement's NOTIFY says so (UPDATES_PAYLOAD): its changes may be
 * drained with the next ones (lane.ts, UPDATE_GAP_MS).
 */
const CAPTURE_SQL = `
create schema if not exists realtime;
revoke all on schema realtime from public;
-- alias.* is the whole row even where the table has a column named like the alias.
create or replace function realtime.capture_insert() returns trigger
language plpgsql security definer set search_path = '' as $$
-- A captured table may have a column named like a variable here: the variable is meant.
#variable_conflict use_variable
declare
  captured int;
  total int;
  writer text;
begin
  if not exists (select 1 from realtime.subscribed s where s.rel = tg_relid) then
    return null;
  end if;
  -- The statement's writer, named once for all its rows.
  writer := realtime.change_sender();
  insert into realtime.changes (rel, kind, record, sender)
    select tg_relid, 'INSERT', to_json(inserted.*), writer from (select * from new_rows limit ${MAX_CHANGES_PER_STATEMENT}) inserted;
  get diagnostics captured = row_count;
  if captured = ${MAX_CHANGES_PER_STATEMENT} then
    select count(*) into total from new_rows;
    if total > captured then
      insert into realtime.changes (rel, kind, record) values (tg_relid, '${DROPPED_KIND}', json_build_object('dropped', total - captured));
    end if;
  end if;
  -- The INSERT half of an upsert that only updated inserts nothing: its updates wake the drain.
  if captured > 0 then
    perform pg_notify('${CHANGES_CHANNEL}', '');
  end if;
  return null;
end $$;

create or replace function realtime.capture_delete() returns trigger
language plpgsql security definer set search_path = '' as $$
-- A captured table may have a column named like a variable here: the variable is meant.
#variable_conflict use_variable
declare
  captured int;
  total int;
  writer text;
begin
  if not exists (select 1 from realtime.subscribed s where s.rel = tg_relid) then
    return null;
  end if;
  -- The statement's writer, named once for all its rows.
  writer := realtime.change_sender();
  insert into realtime.changes (rel, kind, old_record, sender)
    select tg_relid, 'DELETE', to_json(deleted.*), writer from (select * from old_rows limit ${MAX_CHANGES_PER_STATEMENT}) deleted;
  get diagnostics captured = row_count;
  if captured = ${MAX_CHANGES_PER_STATEMENT} then
    select count(*) into total from old_rows;
    if total > captured then
      insert into realtime.changes (rel, kind, record) values (tg_relid, '${DROPPED_KIND}', json_build_object('dropped', total - captured));
    end if;
  end if;
  -- A statement that deleted nothing wakes no drain.
  if captured > 0 then
    perform pg_notify('${CHANGES_CHANNEL}', '');
  end if;
  return null;
end $$;

create or replace function realtime.capture_update() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  counted int;
begin
  if not exists (select 1 from realtime.subscribed s where s.rel = tg_relid) then
    return null;
  end if;
  counted := coalesce(nullif(current_setting('realtime.updates_' || tg_relid, true), ''), '0')::int + 1;
  perform set_config('realtime.updates_' || tg_relid, counted::text, true);
  if counted <= ${MAX_CHANGES_PER_STATEMENT} then
    insert into realtime.changes (rel, kind, record, old_record, sender) values (tg_relid, 'UPDATE', to_json(new), to_json(old), realtime.change_sender());
  end if;
  return null;
end $$;

-- After the row triggers of an update statement: its marker when it changed too many rows, and one NOTIFY.
create or replace function realtime.capture_updated() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  counted int;
begin
  counted := coalesce(nullif(current_setting('realtime.updates_' || tg_relid, true), ''), '0')::int;
  if counted = 0 then
    return null;
  end if;
  perform set_config('realtime.updates_' || tg_relid, '0', true);
  if counted > ${MAX_CHANGES_PER_STATEMENT} then
    insert into realtime.changes (rel, kind, record) values (tg_relid, '${DROPPED_KIND}', json_build_object('dropped', counted - ${MAX_CHANGES_PER_STATEMENT}));
  end if;
  perform pg_notify('${CHANGES_CHANNEL}', '${UPDATES_PAYLOAD}');
  return null;
end $$;

-- Check number n, {rel, role, claims, sql, old_sql}, of present subscribers, under that role and
-- those claims: sql (from visibilitySql) re-reads the rows keys (a JSON array of the new rows
-- of that table's inserts and updates, each with its position i) and returns (ord = i, checked =
-- n) for each one the role can read; old_sql (from oldVisibilitySql, when the check has one)
-- tests the old row images olds of its updates and deletes against the role's read policies,
-- and returns (ord = i, kind = 'old', checked = n) for each one the role could read. A check
-- whose policies raise is reported once as (ord = -1, checked = n) and is otherwise ignored.
create or replace function realtime.run_check(chk jsonb, n int, keys jsonb, olds jsonb)
returns table (ord int, kind text, checked int)
language plpgsql as $$
begin
  perform set_config('role', chk ->> 'role', true), set_config('request.jwt.claims', chk ->> 'claims', true);
  if keys is not null then
    return query execute 'select v.i::int, null::text, v.c::int from (' || (chk ->> 'sql') || ') as v(c, i, failed)' using keys, n;
  end if;
  if olds is not null then
    return query execute 'select v.i::int, ''old''::text, v.c::int from (' || (chk ->> 'old_sql') || ') as v(c, i, failed)' using olds, n;
  end if;
  perform set_config('role', 'none', true);
exception when others then
  return query select -1, null::text, n;
end $$;
revoke all on function realtime.run_check(jsonb, int, jsonb, jsonb) from public;

-- The rows each check of a drain reads, per table of the changes (a JSON object by rel oid, each
-- {keys, olds}: the new rows of its inserts and updates and the old row images of its updates and
-- deletes, each with its position i), so that a drain groups its changes once, not once per check.
create or replace function realtime.rows_by_table(changes jsonb)
returns jsonb
language sql immutable as $$
  select jsonb_object_agg(t.rel, jsonb_build_object('keys', t.keys, 'olds', t.olds))
  from (
    select c.v ->> 'rel' as rel,
      jsonb_agg((c.v -> 'record') || jsonb_build_object('i', c.o)) filter (where c.v ->> 'kind' in ('INSERT', 'UPDATE') and jsonb_typeof(c.v -> 'record') = 'object') as keys,
      jsonb_agg((c.v -> 'old') || jsonb_build_object('i', c.o)) filter (where c.v ->> 'kind' in ('UPDATE', 'DELETE') and jsonb_typeof(c.v -> 'old') = 'object') as olds
    from jsonb_array_elements(changes) with ordinality as c(v, o)
    where c.v ? 'rel'
    group by c.v ->> 'rel') t
$$;
revoke all on function realtime.rows_by_table(jsonb) from public;

-- realtime.run_check of the checks of the tables that have rows among the changes grouped by
-- realtime.rows_by_table. The checks come grouped by table in one byte string: the checks of
-- table check_rels[k] are the JSON array of bytes check_ends[k-1] (0 for the first) to
-- check_ends[k] of checks, each with its number n. Only the groups of the tables the changes
-- touch are read, so a crowd's checks of other tables cost nothing.
create or replace function realtime.run_checks(by_table jsonb, check_rels oid[], check_ends int[], checks bytea)
returns table (ord int, kind text, checked int)
language plpgsql as $$
declare
  k int;
  rel text;
  group_start int;
  chk jsonb;
  keys jsonb;
  olds jsonb;
begin
  if by_table is null then
    return;
  end if;
  for k in 1 .. coalesce(cardinality(check_rels), 0) loop
    rel := check_rels[k]::text;
    continue when not by_table ? rel;
    keys := nullif(by_table -> rel -> 'keys', 'null');
    group_start := case when k = 1 then 0 else check_ends[k - 1] end;
    for chk in select e.v from jsonb_array_elements(convert_from(substring(checks from group_start + 1 for check_ends[k] - group_start), 'UTF8')::jsonb) as e(v) loop
      olds := case when chk ->> 'old_sql' is not null then nullif(by_table -> rel -> 'olds', 'null') end;
      continue when keys is null and olds is null;
      return query select * from realtime.run_check(chk, (chk ->> 'n')::int, keys, olds);
    end loop;
  end loop;
end $$;
revoke all on function realtime.run_checks(jsonb, oid[], int[], bytea) from public;

-- realtime.run_checks on changes another node drained (a JSON array of {rel, kind, record, old},
-- positions counting from 1), removing nothing.
create or replace function realtime.check_changes(changes jsonb, check_rels oid[], check_ends int[], checks bytea)
returns table (ord int, kind text, checked int)
language sql as $$
  select * from realtime.run_checks(realtime.rows_by_table(changes), check_rels, check_ends, checks)
$$;
revoke all on function realtime.check_changes(jsonb, oid[], int[], bytea) from public;

-- Removes the oldest captured changes (at most max_changes) and returns them in commit order as
-- (id, ord, rel, kind, record, old, at, sender, checked = null), ord counting from 1, then the
-- verdicts of realtime.run_checks on them as (ord, kind, checked). One round trip per drain.
-- The drain and checks from before checks came grouped by table: replaced once.
drop function if exists realtime.drain(int, jsonb);
drop function if exists realtime.check_changes(jsonb, jsonb);
create or replace function realtime.drain(max_changes int, check_rels oid[], check_ends int[], checks bytea)
returns table (id bigint, ord int, rel int, kind text, record text, old text, at text, sender text, checked int)
language plpgsql as $$
#variable_conflict use_column
declare
  drained realtime.changes[];
begin
  with d as (
    delete from realtime.changes where id in (select c.id from realtime.changes c order by c.id limit max_changes)
    returning *)
  select coalesce(array_agg(d order by d.id), '{}') into drained from d;
  return query
    select c.id, c.o::int, c.rel::int, c.kind, c.record::text, c.old_record::text,
      to_char(c.at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), c.sender, null::int
    from unnest(drained) with ordinality as c(id, rel, kind, record, old_record, at, sender, o);
  if coalesce(cardinality(check_rels), 0) = 0 or cardinality(drained) = 0 then
    return;
  end if;
  return query select null::bigint, k.ord, null::int, k.kind, null::text, null::text, null::text, null::text, k.checked
    from realtime.run_checks(realtime.rows_by_table((
      select jsonb_agg(jsonb_build_object('rel', c.rel::text, 'kind', c.kind, 'record', c.record::jsonb, 'old', c.old_record::jsonb) order by c.o)
      from unnest(drained) with ordinality as c(id, rel, kind, record, old_record, at, sender, o)
      where c.rel = any (check_rels))), check_rels, check_ends, checks) as k;
end $$;
revoke all on function realtime.drain(int, oid[], int[], bytea) from public;
drop function if exists realtime.visible(jsonb);

do $$
declare t record;
begin
  for t in select format('%I.%I', schemaname, tablename) as name from pg_publication_tables where pubname = 'supabase_realtime' loop
    execute format('create or replace trigger realtime_capture_insert after insert on %s referencing new table as new_rows for each statement execute function realtime.capture_insert()', t.name);
    execute format('create or replace trigger realtime_capture_delete after delete on %s referencing old table as old_rows for each statement execute function realtime.capture_delete()', t.name);
    execute format('create or replace trigger realtime_capture_update after update on %s for each row execute function realtime.capture_update()', t.name);
    execute format('create or replace trigger realtime_capture_updated after update on %s for each statement execute function realtime.capture_updated()', t.name);
  end loop;
  -- A table that left the publication is captured no longer.
  for t in select distinct format('%I.%I', n.nspname, c.relname) as name
           from pg_trigger g join pg_class c on c.oid = g.tgrelid join pg_namespace n on n.oid = c.relnamespace
           where g.tgname in ('realtime_capture_insert', 'realtime_capture_delete', 'realtime_capture_update', 'realtime_capture_updated')
             and not exists (select 1 from pg_publication_tables p
                             where p.pubname = 'supabase_realtime' and p.schemaname = n.nspname and p.tablename = c.relname) loop
    execute format('drop trigger if exists realtime_capture_insert on %s', t.name);
    execute format('drop trigger if exists realtime_capture_delete on %s', t.name);
    execute format('drop trigger if exists realtime_capture_update on %s', t.name);
    execute format('drop trigger if exists realtime_capture_updated on %s', t.name);
  end loop;
end $$;
`;

/**
 * The capture queue and the tables followed, kept across starts: the nodes of a cluster share
 * them (docs/cluster.md). realtime.subscribed holds one row per table and node following it,
 * refreshed by that node's heartbeat (`seen`, subscribed-tables.ts); a table is captured while
 * it has a row.
 */
const CAPTURE_TABLE_SQL = `
create schema if not exists realtime;
-- The list of followed tables from before nodes shared it: replaced once.
do $$
begin
  if to_regclass('realtime.subscribed') is not null and not exists (
      select 1 from pg_attribute where attrelid = to_regclass('realtime.subscribed') and attname = 'node' and not attisdropped) then
    drop table realtime.subscribed;
  end if;
end $$;
create table if not exists realtime.subscribed (
  rel oid not null,
  node text not null,
  seen timestamptz not null default now(),
  primary key (rel, node)
);
create unlogged table if not exists realtime.changes (
  id bigint generated always as identity primary key,
  rel oid not null,
  kind text not null,
  record json,
  old_record json,
  at timestamptz not null default now(),
  sender text
);
`;

/**
 * One captured row change. `record` and `old` are JSON text, columns in table order. Kind
 * {@link DROPPED_KIND} is a statement's marker: record `{"dropped": n}`, its changes past
 * MAX_CHANGES_PER_STATEMENT that were not captured.
 */
export interface Change {
  /** The queue row's id (realtime.changes.id): what tells a change drained twice (docs/cluster.md). */
  id: number;
  rel: number;
  kind: 'INSERT' | 'UPDATE' | 'DELETE' | typeof DROPPED_KIND;
  record: string | null;
  old: string | null;
  /** commit_timestamp as hosted formats it: YYYY-MM-DDTHH:MI:SS.MSZ in UTC. */
  at: string;
  /** The writer as realtime.change_sender() named it (server/realtime/change-senders.ts), or null. */
  sender: string | null;
}

/** The channel on which PostgreSQL says that published tables or their policies may have changed. */
export const SCHEMA_CHANNEL = 'realtime_schema';

/** The event trigger that notifies {@link SCHEMA_CHANNEL}; absent where the server could not create it. */
export const SCHEMA_WATCH_TRIGGER = 'realtime_schema_change';

/**
 * An event trigger that notifies {@link SCHEMA_CHANNEL} after DDL that can change what Realtime
 * serves (publications, tables, policies; not grants, which the capture itself issues), so the catalogue of published tables is
 * re-read at once and a join can be answered from memory. Creating an event trigger needs a
 * superuser: on a database where the server is not one, it is skipped and the catalogue is
 * re-read only when a join names a table it lacks (at most every CATALOGUE_REFRESH_MS).
 */
const SCHEMA_WATCH_SQL = `
create or replace function realtime.notify_schema_change() returns event_trigger
language plpgsql as $$
begin
  perform pg_notify('${SCHEMA_CHANNEL}', '');
end $$;
do $$
begin
  drop event trigger if exists ${SCHEMA_WATCH_TRIGGER};
  create event trigger ${SCHEMA_WATCH_TRIGGER} on ddl_command_end
    when tag in ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'DROP PUBLICATION', 'CREATE TABLE', 'ALTER TABLE',
                 'DROP TABLE', 'CREATE POLICY', 'ALTER POLICY', 'DROP POLICY')
    execute function realtime.notify_schema_change();
exception when insufficient_privilege then
  null;
end $$;
`;

/** Creates the capture tables (when missing) and the schema watch, then {@link captureTables}. */
export async function installCapture(db: Queryable): Promise<void> {
  await db.exec(CAPTURE_TABLE_SQL);
  await db.exec(SCHEMA_WATCH_SQL);
  await captureTables(db);
}

/** (Re)installs the capture triggers on every published table (and removes them from tables no longer published), and the drain function. */
export async function captureTables(db: Queryable): Promise<void> {
  await db.exec(CAPTURE_SQL);
}

/**
 * A visibility check for {@link drain}, run under a role and claims for the changes of table
 * `rel`: its `sql` (from visibilitySql) on the rows of its inserts and updates, its `old_sql`
 * (from oldVisibilitySql; null when the role's verdict does not depend on the row) on the old
 * row images of its updates and deletes. `text` is the check as realtime.run_check reads it
 * ({@link checkText}), made once per subscriber rather than per drain. `shareKey` names a check
 * whose verdicts depend on no claims (table and role, when the role's access is `exists`): every
 * node's check of that key judges a change alike, so a drainer's verdicts serve the other nodes
 * (change-relay.ts); null for a check that reads the claims.
 */
export interface VisibilityCheck {
  rel: number;
  text: string;
  shareKey: string | null;
}

/** What a visibility check runs: see {@link VisibilityCheck}. */
export interface CheckSpec {
  rel: number;
  role: string;
  claims: string;
  sql: string;
  old_sql: string | null;
}

/** The {@link VisibilityCheck.text} of a check: its JSON. */
export function checkText(check: CheckSpec): string {
  return JSON.stringify(check);
}

/** What one drain returns: the changes in commit order, and which checks found each one readable. */
export interface Drained {
  changes: Change[];
  /** visible.get(check) holds the positions (in `changes`) of the changes that check found readable. */
  visible: Map<number, Set<number>>;
  /** oldVisible.get(check) holds the positions of the changes whose old row image that check found readable. */
  oldVisible: Map<number, Set<number>>;
  /** Indexes of checks whose policies raised: none of their changes are readable. */
  failed: Set<number>;
}

/** A row of realtime.drain or realtime.check_changes: a change (checked null) or a verdict. */
interface DrainRow {
  id: string | null;
  ord: number;
  rel: number | null;
  kind: Change['kind'] | 'old' | null;
  record: string | null;
  old: string | null;
  at: string | null;
  sender: string | null;
  checked: number | null;
}

/** Sorts the rows of a drain or a check into the changes and the checks' verdicts. */
function readDrained(rows: DrainRow[]): Drained {
  const changes: Change[] = [];
  const visible = new Map<number, Set<number>>();
  const oldVisible = new Map<number, Set<number>>();
  const failed = new Set<number>();
  for (const row of rows) {
    if (row.checked === null) changes.push({ id: Number(row.id), rel: row.rel!, kind: row.kind as Change['kind'], record: row.record, old: row.old, at: row.at!, sender: row.sender });
    else if (row.ord < 0) failed.add(row.checked);
    else {
      const verdicts = row.kind === 'old' ? oldVisible : visible;
      let positions = verdicts.get(row.checked);
      if (!positions) verdicts.set(row.checked, (positions = new Set()));
      positions.add(row.ord - 1);
    }
  }
  return { changes, visible, oldVisible, failed };
}

/**
 * Visibility checks as realtime.drain and realtime.check_changes take them: one byte string of
 * JSON arrays, one per table, each check with its number `n`; `ends[k]` is the byte where the
 * array of table `rels[k]` ends. PostgreSQL parses only the arrays of the tables a drain touches.
 */
interface GroupedChecks {
  rels: string;
  ends: string;
  bytes: Buffer;
}

/** The grouping of each plan's checks, made once per plan (a plan's checks never change). */
const groupedChecks = new WeakMap<VisibilityCheck[], GroupedChecks>();

/** `checks` grouped by table for realtime.drain ({@link GroupedChecks}); each check's text is only joined here. */
function groupChecks(checks: VisibilityCheck[]): GroupedChecks {
  let grouped = groupedChecks.get(checks);
  if (grouped) return grouped;
  const byRel = new Map<number, string[]>();
  checks.forEach((check, n) => {
    let group = byRel.get(check.rel);
    if (!group) byRel.set(check.rel, (group = []));
    group.push(`{"n":${n},${check.text.slice(1)}`);
  });
  const arrays = [...byRel.values()].map((group) => Buffer.from(`[${group.join(',')}]`));
  let end = 0;
  const ends = arrays.map((array) => (end += array.length));
  grouped = { rels: `{${[...byRel.keys()].join(',')}}`, ends: `{${ends.join(',')}}`, bytes: Buffer.concat(arrays) };
  groupedChecks.set(checks, grouped);
  return grouped;
}

/**
 * Removes the oldest captured changes (at most {@link DRAIN_LIMIT}) and evaluates `checks` on
 * them, in one round trip.
 */
export async function drain(db: Queryable, checks: VisibilityCheck[]): Promise<Drained> {
  const { rels, ends, bytes } = groupChecks(checks);
  const { rows } = await db.query<DrainRow>(
    'select id, ord, rel, kind, record, old, at, sender, checked from realtime.drain($1, $2::oid[], $3::int[], $4::bytea)',
    [DRAIN_LIMIT, rels, ends, bytes],
  );
  return readDrained(rows);
}

/**
 * Evaluates `checks` on `changes` another node drained, without removing anything, in one round
 * trip; the result's `changes` is `changes` itself. Only the changes of `checked` tables are sent.
 */
export async function checkChanges(db: Queryable, changes: Change[], checks: VisibilityCheck[], checked: ReadonlySet<number>): Promise<Drained> {
  const sent = changes.map((c) => (checked.has(c.rel) ? `{"rel":${c.rel},"kind":"${c.kind}","record":${c.record ?? 'null'},"old":${c.old ?? 'null'}}` : '{}'));
  const { rels, ends, bytes } = groupChecks(checks);
  const { rows } = await db.query<DrainRow>(
    'select null as id, ord, null as rel, kind, null as record, null as old, null as at, null as sender, checked from realtime.check_changes($1::jsonb, $2::oid[], $3::int[], $4::bytea)',
    [`[${sent.join(',')}]`, rels, ends, bytes],
  );
  return { ...readDrained(rows), changes };
}
