import type { Database } from '../db/index.js';
import { RestError } from './errors.js';

/** A table or view of the exposed schema, as the REST layer validates identifiers against it. */
export interface TableInfo {
  /** The exposed schema that holds it. */
  schema: string;
  name: string;
  /** Column names in table order. */
  columns: string[];
  /** Each column's type as `format_type` prints it (`text`, `int4range`, `public.user_status`). */
  types: Map<string, string>;
  /** A view (relationships are then read through its base tables). */
  view: boolean;
  primaryKey: string[];
  /** Column sets that are unique: the primary key, unique constraints and unique indexes. */
  uniques: string[][];
  /** The large text columns (see {@link LARGE_TEXT_CHARS}), each with the most characters it may hold. */
  largeText: Map<string, number>;
  /** The columns of each plain-column btree index, in index order (primary key included). */
  indexes: string[][];
  /** Columns whose collation is not the database's default, each with its qualified, quoted name. */
  collations: Map<string, string>;
}

/**
 * A text column is large when the schema says it may hold more characters than this: by
 * `varchar(n)` or a `char_length(col) <= n` check. A column that stores big values states its
 * bound (as `game_voice_messages.audio_data` does); one without a stated bound is not large.
 */
export const LARGE_TEXT_CHARS = 1_000;

/** `char_length(col) <= n` (or `length`) in a check constraint's definition, as PostgreSQL prints it. */
const LENGTH_CHECK = /\b(?:char_length|length)\(\(?"?([A-Za-z_][A-Za-z0-9_]*)"?\)?(?:::text)?\) <= (\d+)/g;

/** The bound each column's check constraints put on its length; constraints with OR bound nothing. */
function checkedLengths(checks: string[]): Map<string, number> {
  const limits = new Map<string, number>();
  for (const check of checks) {
    if (/\bOR\b/.test(check)) continue;
    for (const [, column, limit] of check.matchAll(LENGTH_CHECK)) {
      limits.set(column!, Math.min(Number(limit), limits.get(column!) ?? Infinity));
    }
  }
  return limits;
}

/**
 * The SQL of two columns describing the relation aliased `c` for {@link largeTextColumns}:
 * `text_columns`, `[column, varchar length or null]` for each text-like column, and `checks`,
 * the definitions of its check constraints.
 */
export const TEXT_BOUNDS_SQL = `coalesce((select json_agg(json_build_array(a.attname,
                   case when a.atttypid = 'varchar'::regtype and a.atttypmod > 4 then a.atttypmod - 4 end))
                 from pg_attribute a
                 where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                   and a.atttypid in ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype, 'json'::regtype, 'jsonb'::regtype, 'bytea'::regtype)), '[]') as text_columns,
       array(select pg_get_constraintdef(k.oid) from pg_constraint k where k.conrelid = c.oid and k.contype = 'c') as checks`;

/** The large text columns (see {@link LARGE_TEXT_CHARS}) among `textColumns`, each with the most characters it may hold, from {@link TEXT_BOUNDS_SQL}'s columns. */
export function largeTextColumns(textColumns: [string, number | null][], checks: string[]): Map<string, number> {
  const lengths = checkedLengths(checks);
  const largeText = new Map<string, number>();
  for (const [column, varchar] of textColumns) {
    const limit = varchar ?? lengths.get(column);
    if (limit !== undefined && limit > LARGE_TEXT_CHARS) largeText.set(column, limit);
  }
  return largeText;
}

/** A foreign key from `table(columns)` to `foreignTable(foreignColumns)`, also as seen through views. */
export interface ForeignKey {
  constraint: string;
  table: string;
  columns: string[];
  foreignTable: string;
  foreignColumns: string[];
}

/** One argument of a function. An unnamed argument has the name ''. */
export interface FunctionArg {
  name: string;
  type: string;
  hasDefault: boolean;
}

/** A function of the exposed schema that can be called as `/rpc/<name>` or embedded. */
export interface FunctionInfo {
  /** The exposed schema that holds it. */
  schema: string;
  name: string;
  args: FunctionArg[];
  /** `format_type` of the result (`void`, `text`, `public.users`). */
  returns: string;
  returnsSet: boolean;
  /** The exposed table or view whose rows it returns, if any. */
  returnsTable: string | null;
  /** The columns of a `returns table (...)` result, `[name, type]`. */
  resultColumns: [string, string][];
  /** `i`mmutable, `s`table or `v`olatile: only volatile functions may be called with POST alone. */
  volatility: 'i' | 's' | 'v';
  /**
   * The table or view of this schema whose row type its one argument is, if it takes exactly one
   * such argument: then it is a computed column or a computed relationship of that table.
   */
  rowArg: string | null;
  /** The planner's row estimate (`ROWS n`): a set-returning function with `ROWS 1` embeds as to-one. */
  rows: number;
}

/** One exposed schema: its tables and views by name, their foreign keys and its functions by name. */
export interface Catalog {
  schema: string;
  tables: Map<string, TableInfo>;
  foreignKeys: ForeignKey[];
  functions: Map<string, FunctionInfo[]>;
}

interface CatalogRow {
  name: string;
  view: boolean;
  columns: string[];
  types: string[];
  /** Each column's collation when it is not the default (oid 100), else null. */
  collations: (string | null)[];
  uniques: string[][] | null;
  primary_key: string[];
  /** `[column, varchar length or null]` for each text-like column. */
  text_columns: [string, number | null][];
  checks: string[];
  indexes: string[][] | null;
}

/**
 * Reads the tables and views of `schema` with their columns, primary keys, text columns'
 * length bounds and btree indexes, its foreign keys and its functions.
 */
export async function loadCatalog(db: Database, schema: string): Promise<Catalog> {
  const { rows } = await db.query<CatalogRow>(
    `select c.relname as name, c.relkind in ('v', 'm') as view,
       array(select a.attname::text from pg_attribute a
             where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns,
       array(select format_type(a.atttypid, a.atttypmod) from pg_attribute a
             where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as types,
       array(select case when a.attcollation not in (0, 100) then
                      (select quote_ident(cn.nspname) || '.' || quote_ident(co.collname) from pg_collation co
                       join pg_namespace cn on cn.oid = co.collnamespace where co.oid = a.attcollation) end
             from pg_attribute a
             where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as collations,
       (select json_agg(array(select a.attname::text from unnest(i.indkey::int2[]) as k(attnum)
                              join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum))
          from pg_index i where i.indrelid = c.oid and i.indisunique and i.indexprs is null and i.indpred is null) as uniques,
       coalesce(array(select a.attname::text from pg_index i
             join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
             where i.indrelid = c.oid and i.indisprimary order by array_position(i.indkey::int2[], a.attnum)), '{}') as primary_key,
       ${TEXT_BOUNDS_SQL},
       (select json_agg(cols) from (
          select array(select a.attname::text from unnest(i.indkey::int2[]) with ordinality as k(attnum, n)
                       join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum order by k.n) as cols
          from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
          where i.indrelid = c.oid and am.amname = 'btree' and i.indexprs is null and i.indpred is null) s) as indexes
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relkind in ('r', 'v', 'p', 'm')`,
    [schema],
  );
  const tables = new Map(
    rows.map((r) => {
      const largeText = largeTextColumns(r.text_columns, r.checks);
      const types = new Map(r.columns.map((column, i) => [column, r.types[i]!]));
      const collations = new Map(r.columns.flatMap((column, i) => (r.collations[i] ? [[column, r.collations[i]!] as const] : [])));
      const table: TableInfo = {
        schema, name: r.name, columns: r.columns, types, view: r.view, primaryKey: r.primary_key,
        uniques: r.uniques ?? [], largeText, indexes: r.indexes ?? [], collations,
      };
      return [r.name, table];
    }),
  );
  return { schema, tables, foreignKeys: await loadForeignKeys(db, schema), functions: await loadFunctions(db, schema, tables) };
}

/** The catalog of each schema named in `schemas`, in the order given (the first is the default). */
export async function loadCatalogs(db: Database, schemas: readonly string[]): Promise<Map<string, Catalog>> {
  const catalogs = new Map<string, Catalog>();
  for (const schema of schemas) catalogs.set(schema, await loadCatalog(db, schema));
  return catalogs;
}

/**
 * The foreign keys between tables of `schema`, plus the same keys seen through each view
 * that shows all of a key's columns under their own names (as PostgREST infers them).
 */
async function loadForeignKeys(db: Database, schema: string): Promise<ForeignKey[]> {
  const { rows } = await db.query<ForeignKey>(
    `with fk as (
       select k.conname::text as "constraint", c.relname::text as table, f.relname::text as foreign_table,
         array(select a.attname::text from unnest(k.conkey) with ordinality as u(n, i)
               join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n order by u.i) as columns,
         array(select a.attname::text from unnest(k.confkey) with ordinality as u(n, i)
               join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n order by u.i) as foreign_columns
       from pg_constraint k
       join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
       join pg_class f on f.oid = k.confrelid join pg_namespace fn on fn.oid = f.relnamespace
       where k.contype = 'f' and n.nspname = $1 and fn.nspname = $1 and k.conparentid = 0
     ),
     views as (
       select v.view_name::text as view, v.table_name::text as base,
         array_agg(v.column_name::text) as columns
       from information_schema.view_column_usage v
       where v.view_schema = $1 and v.table_schema = $1
       group by 1, 2
     ),
     shown as (
       select fk."constraint", coalesce(sv.view, fk.table) as table, coalesce(fv.view, fk.foreign_table) as foreign_table,
         fk.columns, fk.foreign_columns
       from fk
       left join views sv on sv.base = fk.table and fk.columns <@ sv.columns
       left join views fv on fv.base = fk.foreign_table and fk.foreign_columns <@ fv.columns
     )
     select "constraint", "table", foreign_table as "foreignTable", columns, foreign_columns as "foreignColumns" from fk
     union
     select "constraint", "table", foreign_table, columns, foreign_columns from shown
     order by 2, 1, 3`,
    [schema],
  );
  return rows;
}

interface FunctionRow extends Omit<FunctionInfo, 'returnsTable' | 'schema' | 'rowArg'> {
  returns_relation: string | null;
  arg_relation: string | null;
}

/** The functions of `schema` that are not triggers, aggregates or procedures. */
async function loadFunctions(db: Database, schema: string, tables: Map<string, TableInfo>): Promise<Map<string, FunctionInfo[]>> {
  const { rows } = await db.query<FunctionRow>(
    `select p.proname::text as name,
       coalesce((select json_agg(json_build_object(
                   'name', coalesce(p.proargnames[u.i], ''),
                   'type', format_type(u.t, null),
                   'hasDefault', u.i > p.pronargs - p.pronargdefaults) order by u.i)
                 from unnest(p.proargtypes::oid[]) with ordinality as u(t, i)), '[]') as args,
       coalesce((select json_agg(json_build_array(p.proargnames[u.i], format_type(u.t, null)) order by u.i)
                 from unnest(p.proallargtypes::oid[], p.proargmodes) with ordinality as u(t, m, i) where u.m = 't'), '[]') as "resultColumns",
       format_type(p.prorettype, null) as returns, p.proretset as "returnsSet", p.provolatile as volatility,
       (select r.relname::text from pg_type t join pg_class r on r.oid = t.typrelid
          join pg_namespace rn on rn.oid = r.relnamespace
        where t.oid = p.prorettype and rn.nspname = $1) as returns_relation,
       (select r.relname::text from pg_type t join pg_class r on r.oid = t.typrelid
          join pg_namespace rn on rn.oid = r.relnamespace
        where p.pronargs = 1 and t.oid = p.proargtypes[0] and rn.nspname = $1) as arg_relation,
       p.prorows::float8 as rows
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = $1 and p.prokind = 'f'
       and p.prorettype not in ('trigger'::regtype, 'event_trigger'::regtype)
       and not exists (select 1 from unnest(p.proargmodes) m where m not in ('i', 't'))
     order by p.proname, p.oid`,
    [schema],
  );
  const functions = new Map<string, FunctionInfo[]>();
  for (const { returns_relation, arg_relation, ...row } of rows) {
    const info: FunctionInfo = {
      ...row, schema,
      returnsTable: returns_relation && tables.has(returns_relation) ? returns_relation : null,
      rowArg: arg_relation && tables.has(arg_relation) ? arg_relation : null,
    };
    functions.set(row.name, [...(functions.get(row.name) ?? []), info]);
  }
  return functions;
}

/** The table named `name`, or PGRST205 (404) as PostgREST answers for an unknown table. */
export function tableOf(catalog: Catalog, name: string): TableInfo {
  const table = catalog.tables.get(name);
  if (!table) {
    throw new RestError(404, 'PGRST205', `Could not find the table '${catalog.schema}.${name}' in the schema cache`);
  }
  return table;
}

/** Checks that `column` exists in `table`, with the error PostgreSQL gives otherwise (42703), naming the table `label`. */
export function checkColumn(table: TableInfo, column: string, label = table.name): string {
  if (!table.columns.includes(column)) {
    throw new RestError(400, '42703', `column ${label}.${column} does not exist`);
  }
  return column;
}

/** The schema-qualified name of a table, view or function of the catalog, quoted. */
export function qualified(item: { schema: string; name: string }): string {
  return `${ident(item.schema)}.${ident(item.name)}`;
}

/** Double-quotes an identifier that has been checked against the catalog. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
