import type { Queryable } from '../db/index.js';
import { TEXT_BOUNDS_SQL, largeTextColumns } from '../rest/catalog.js';

/** A table of the publication supabase_realtime, as postgres_changes needs it. */
export interface TableInfo {
  oid: number;
  schema: string;
  name: string;
  rls: boolean;
  /** Replica identity: 'd' default (primary key), 'f' full, 'n' nothing, 'i' index. */
  identity: string;
  /** Column names and their Postgres type names, in table order. */
  columns: { name: string; type: string }[];
  types: Map<string, string>;
  /** Each column's type as PostgreSQL names it in messages (`integer`, `character varying`). */
  typeNames: Map<string, string>;
  /** The large text columns, each with the most characters it may hold: the REST bound's rule (server/rest/catalog.ts). */
  largeText: Map<string, number>;
  /** Primary-key columns with their SQL types; empty if the table has none. */
  pk: { name: string; sqlType: string }[];
}

/**
 * What a role may read of a table. `exists`: any row that still exists is visible (no RLS,
 * bypassrls, or an unconditional policy); `claims`: visibility depends on the JWT claims;
 * `hidden`: no policy ever lets it read; `denied`: it lacks SELECT on the primary key;
 * `nokey`: the table has no primary key to re-read rows by.
 */
export interface Access {
  mode: 'exists' | 'claims' | 'hidden' | 'denied' | 'nokey';
  /** Readable columns, or null when all are. */
  columns: Set<string> | null;
  /**
   * Under `claims`, the role's row-level read rule as one SQL condition on the table's columns
   * (its permissive SELECT policies OR-ed, its restrictive ones AND-ed): what decides whether it
   * could read an old row image, which can no longer be re-read. Null in the other modes.
   */
  policy: string | null;
}

/** Loads every table of supabase_realtime, keyed by oid. */
export async function loadTables(db: Queryable): Promise<Map<number, TableInfo>> {
  const { rows } = await db.query<Omit<TableInfo, 'types' | 'typeNames' | 'largeText'> & { text_columns: [string, number | null][]; checks: string[]; type_names: string[] }>(`
    select c.oid::int as oid, n.nspname as schema, c.relname as name, c.relrowsecurity as rls,
      c.relreplident::text as identity,
      (select json_agg(json_build_object('name', a.attname, 'type', t.typname) order by a.attnum)
         from pg_attribute a join pg_type t on t.oid = a.atttypid
         where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns,
      array(select format_type(a.atttypid, null) from pg_attribute a
            where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as type_names,
      coalesce((select json_agg(json_build_object('name', a.attname, 'sqlType', format_type(a.atttypid, a.atttypmod))
                  order by array_position(i.indkey::int2[], a.attnum))
         from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
         where i.indrelid = c.oid and i.indisprimary), '[]') as pk,
      ${TEXT_BOUNDS_SQL}
    from pg_publication_tables p
    join pg_namespace n on n.nspname = p.schemaname
    join pg_class c on c.relnamespace = n.oid and c.relname = p.tablename
    where p.pubname = 'supabase_realtime'`);
  return new Map(
    rows.map(({ text_columns, checks, type_names, ...row }) => [
      row.oid,
      {
        ...row,
        types: new Map(row.columns.map((col) => [col.name, col.type])),
        typeNames: new Map(row.columns.map((col, i) => [col.name, type_names[i]!])),
        largeText: largeTextColumns(text_columns, checks),
      },
    ]),
  );
}

/** Works out what `role` may read of `table` from its privileges and policies. */
export async function loadAccess(db: Queryable, table: TableInfo, role: string): Promise<Access> {
  const { rows } = await db.query<{
    known: boolean;
    bypass: boolean;
    readable: string[];
    permissive: boolean;
    open: boolean;
    restrictive: boolean;
    policy: string | null;
  }>(
    `with r as (select oid, rolbypassrls or rolsuper as bypass from pg_roles where rolname = $1),
     p as (
       select pol.polpermissive as permissive, pg_get_expr(pol.polqual, pol.polrelid) as qual
       from pg_policy pol, r
       where pol.polrelid = $2 and pol.polcmd in ('r', '*')
         and exists (select 1 from unnest(pol.polroles) pr where pr = 0 or pg_has_role(r.oid, pr, 'USAGE')))
     select exists (select 1 from r) as known,
       coalesce((select bypass from r), false) as bypass,
       coalesce((select array_agg(a.attname::text) from pg_attribute a, r
                 where a.attrelid = $2 and a.attnum > 0 and not a.attisdropped
                   and has_column_privilege(r.oid, a.attrelid, a.attnum, 'SELECT')), '{}') as readable,
       exists (select 1 from p where permissive) as permissive,
       exists (select 1 from p where permissive and qual = 'true') as open,
       exists (select 1 from p where not permissive) as restrictive,
       -- A policy without USING lets no row be read (permissive) or leaves the others to decide (restrictive).
       (select '(' || string_agg('(' || coalesce(qual, 'false') || ')', ' or ') || ')'
          || coalesce((select string_agg(' and (' || qual || ')', '') from p where not permissive and qual is not null), '')
          from p where permissive) as policy`,
    [role, table.oid],
  );
  const info = rows[0];
  const readable = new Set(info.readable);
  const columns = readable.size === table.columns.length ? null : readable;
  if (table.pk.length === 0) return { mode: 'nokey', columns, policy: null };
  if (!info.known || !table.pk.every((col) => readable.has(col.name))) return { mode: 'denied', columns, policy: null };
  if (!table.rls || info.bypass) return { mode: 'exists', columns, policy: null };
  if (!info.permissive) return { mode: 'hidden', columns, policy: null };
  if (info.open && !info.restrictive) return { mode: 'exists', columns, policy: null };
  return { mode: 'claims', columns, policy: info.policy };
}

/**
 * The statement realtime.drain runs for `table`: given change keys as a JSON array
 * of {i, <pk columns>}, it returns ($2, i, false) for each key whose row the current role can read.
 */
export function visibilitySql(table: TableInfo): string {
  const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const defs = table.pk.map((col) => `${ident(col.name)} ${col.sqlType}`).join(', ');
  const join = table.pk.map((col) => `t.${ident(col.name)} = k.${ident(col.name)}`).join(' and ');
  return `select $2, k.i, false from jsonb_to_recordset($1) as k(i int, ${defs}) join ${ident(table.schema)}.${ident(table.name)} t on ${join}`;
}

/**
 * The statement realtime.drain runs for `table` on old row images (of updates and deletes),
 * which can no longer be re-read: given them as a JSON array of rows with their position `i`, it
 * returns ($2, i, false) for each image that `policy` (the reader's row-level read rule, from
 * {@link loadAccess}) lets the current role and claims read, as row-level security would have
 * on the row before it changed. The image is named like the table, as the policy's own
 * subqueries name the row they check.
 */
export function oldVisibilitySql(table: TableInfo, policy: string): string {
  const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return `select $2, (realtime_old_image.v ->> 'i')::int, false from jsonb_array_elements($1) as realtime_old_image(v)
    cross join lateral jsonb_populate_record(null::${ident(table.schema)}.${ident(table.name)}, realtime_old_image.v) as ${ident(table.name)}
    where ${policy}`;
}
