import { ident, type TableInfo } from './catalog.js';
import { RestError } from './errors.js';
import { comparisonSql, type Filter, type RequestQuery } from './query.js';
import type { Preferences } from './prefer.js';

/** One statement with its parameters. Identifiers come from the catalog; values are parameters. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** The result columns every statement below returns. */
export interface ResultRow {
  total: number | null;
  page: number;
  inserted: number;
  body: string;
}

function target(table: TableInfo): string {
  return `public.${ident(table.name)}`;
}

function filterSql(table: TableInfo, filter: Filter, params: unknown[]): string {
  const column = `${ident(table.name)}.${ident(filter.column)}`;
  const add = (value: unknown) => `$${params.push(value)}`;
  let condition: string;
  if (filter.op === 'in') {
    condition = filter.values.length ? `${column} in (${filter.values.map(add).join(', ')})` : 'false';
  } else if (filter.op === 'is') {
    condition = `${column} is ${filter.value}`;
  } else {
    const value = filter.op === 'like' || filter.op === 'ilike' ? filter.value.replaceAll('*', '%') : filter.value;
    condition = `${column} ${comparisonSql(filter.op)} ${add(value)}`;
  }
  return filter.negate ? `not (${condition})` : condition;
}

function whereSql(table: TableInfo, filters: Filter[], params: unknown[]): string {
  return filters.length ? `where ${filters.map((f) => filterSql(table, f, params)).join(' and ')}` : '';
}

function projection(columns: string[]): string {
  return columns.map(ident).join(', ');
}

/** GET/HEAD: the page as a JSON array, its row count and, with count=exact, the total. */
export function selectStatement(table: TableInfo, query: RequestQuery, countExact: boolean): Statement {
  const params: unknown[] = [];
  const where = whereSql(table, query.filters, params);
  const order = query.order.length
    ? `order by ${query.order
        .map((o) => `${ident(o.column)} ${o.descending ? 'desc' : 'asc'}${o.nulls ? ` nulls ${o.nulls}` : ''}`)
        .join(', ')}`
    : '';
  const limit = query.limit === undefined ? '' : `limit ${query.limit}`;
  const offset = query.offset ? `offset ${query.offset}` : '';
  const total = countExact ? `(select count(*)::int from ${target(table)} ${where})` : 'null::int';
  return {
    sql: `with pgrst_source as (select ${projection(query.select)} from ${target(table)} ${where} ${order} ${limit} ${offset})
          select ${total} as total, count(*)::int as page, 0 as inserted,
                 coalesce(json_agg(_r), '[]')::text as body from pgrst_source _r`,
    params,
  };
}

/** Wraps a data-changing statement so it returns the changed rows projected by `select`. */
function withRepresentation(dml: string, table: TableInfo, select: string[], params: unknown[]): Statement {
  const all = table.columns.map((c) => `${ident(table.name)}.${ident(c)}`).join(', ');
  return {
    sql: `with pgrst_source as (${dml} returning ${all}, (${ident(table.name)}.xmax = 0) as pgrst_inserted)
          select null::int as total, count(*)::int as page,
                 (count(*) filter (where pgrst_inserted))::int as inserted,
                 coalesce((select json_agg(_r) from (select ${projection(select)} from pgrst_source) _r), '[]')::text as body
          from pgrst_source`,
    params,
  };
}

function keysOf(rows: Record<string, unknown>[], table: TableInfo): string[] {
  const keys = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) keys.add(key);
  for (const key of keys) {
    if (!table.columns.includes(key)) {
      throw new RestError(400, 'PGRST204', `Could not find the '${key}' column of '${table.name}' in the schema cache`);
    }
  }
  return [...keys];
}

/**
 * POST: insert one or several rows, as an upsert when a resolution is preferred. Returns null
 * when there is nothing to insert (an empty array).
 */
export function insertStatement(
  table: TableInfo,
  query: RequestQuery,
  rows: Record<string, unknown>[],
  prefer: Preferences,
): Statement | null {
  const columns = query.columns ?? keysOf(rows, table);
  let dml: string;
  let params: unknown[];
  if (columns.length) {
    params = [JSON.stringify(rows)];
    dml = `insert into ${target(table)} (${projection(columns)})
       select ${projection(columns)} from json_populate_recordset(null::${target(table)}, $1::json)`;
  } else if (rows.length === 1) {
    params = [];
    dml = `insert into ${target(table)} default values`;
  } else {
    return null;
  }
  if (prefer.resolution) {
    const conflict = query.onConflict ?? table.primaryKey;
    if (!conflict.length) throw new RestError(400, '42P10', 'there is no unique or exclusion constraint matching the ON CONFLICT specification');
    const update = columns.map((c) => `${ident(c)} = excluded.${ident(c)}`).join(', ');
    dml += ` on conflict (${projection(conflict)}) ${
      prefer.resolution === 'merge-duplicates' && update ? `do update set ${update}` : 'do nothing'
    }`;
  }
  return prefer.representation ? withRepresentation(dml, table, query.select, params) : { sql: dml, params };
}

/** PATCH: update the filtered rows with the body's columns. */
export function updateStatement(table: TableInfo, query: RequestQuery, body: Record<string, unknown>, representation: boolean): Statement {
  if (!query.filters.length) throw new RestError(400, '21000', 'UPDATE requires a WHERE clause');
  const columns = keysOf([body], table);
  if (!columns.length) throw new RestError(400, 'PGRST102', 'Empty or invalid json');
  const params: unknown[] = [JSON.stringify(body)];
  const set = columns.map((c) => `${ident(c)} = pgrst_body.${ident(c)}`).join(', ');
  const dml = `update ${target(table)} set ${set}
    from (select * from json_populate_record(null::${target(table)}, $1::json)) pgrst_body
    ${whereSql(table, query.filters, params)}`;
  return representation ? withRepresentation(dml, table, query.select, params) : { sql: dml, params };
}

/** DELETE: delete the filtered rows. An unfiltered delete is refused, as hosted Supabase does. */
export function deleteStatement(table: TableInfo, query: RequestQuery, representation: boolean): Statement {
  if (!query.filters.length) throw new RestError(400, '21000', 'DELETE requires a WHERE clause');
  const params: unknown[] = [];
  const dml = `delete from ${target(table)} ${whereSql(table, query.filters, params)}`;
  return representation ? withRepresentation(dml, table, query.select, params) : { sql: dml, params };
}
