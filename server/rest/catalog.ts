import type { Database } from '../db/index.js';
import { RestError } from './errors.js';

/** A table or view of the exposed schema, as the REST layer validates identifiers against it. */
export interface TableInfo {
  name: string;
  /** Column names in table order. */
  columns: string[];
  primaryKey: string[];
}

/** The exposed tables by name. */
export type Catalog = Map<string, TableInfo>;

/** Reads the tables and views of schema `public` with their columns and primary keys. */
export async function loadCatalog(db: Database): Promise<Catalog> {
  const { rows } = await db.query<{ name: string; columns: string[]; primary_key: string[] }>(
    `select c.relname as name,
       array(select a.attname::text from pg_attribute a
             where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns,
       coalesce(array(select a.attname::text from pg_index i
             join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
             where i.indrelid = c.oid and i.indisprimary order by array_position(i.indkey::int2[], a.attnum)), '{}') as primary_key
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'v', 'p', 'm')`,
  );
  return new Map(rows.map((r) => [r.name, { name: r.name, columns: r.columns, primaryKey: r.primary_key }]));
}

/** The table named `name`, or PGRST205 (404) as PostgREST answers for an unknown table. */
export function tableOf(catalog: Catalog, name: string): TableInfo {
  const table = catalog.get(name);
  if (!table) {
    throw new RestError(404, 'PGRST205', `Could not find the table 'public.${name}' in the schema cache`);
  }
  return table;
}

/** Checks that `column` exists in `table`, with the error PostgreSQL gives otherwise (42703). */
export function checkColumn(table: TableInfo, column: string): string {
  if (!table.columns.includes(column)) {
    throw new RestError(400, '42703', `column ${table.name}.${column} does not exist`);
  }
  return column;
}

/** Double-quotes an identifier that has been checked against the catalog. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
