import { ident, qualified, type TableInfo } from './catalog.js';
import { RestError } from './errors.js';
import { ftsFunction, isFts, operatorSql, TYPED_OPERATORS } from './operators.js';
import type { Condition, EmbedQuery, FieldRef, Filter, OrderTerm, RequestQuery } from './request.js';
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
  return qualified(table);
}

/** A parameter placeholder for `value`, appended to `params`. */
function bind(params: unknown[], value: unknown): string {
  return `$${params.push(value)}`;
}

/** SQL for a column with its JSON steps; keys are parameters, array indexes literal integers. */
function fieldSql(table: TableInfo, field: FieldRef, params: unknown[], q = ident(table.name)): string {
  let sql = `${q}.${ident(field.column)}`;
  for (const step of field.path) {
    sql = /^-?\d+$/.test(step.key) ? `(${sql}${step.arrow}${Number(step.key)})` : `(${sql}${step.arrow}${bind(params, step.key)}::text)`;
  }
  return sql;
}

/** The ordering operators, whose quantified lists reduce to one value. */
type Ordering = 'lt' | 'lte' | 'gt' | 'gte';
const isOrdering = (op: string): op is Ordering => op === 'lt' || op === 'lte' || op === 'gt' || op === 'gte';

/** ` collate <name>` when a plain column's collation is not the database's default, else ''. */
function collation(table: TableInfo, field: FieldRef): string {
  const name = field.path.length ? undefined : table.collations.get(field.column);
  return name ? ` collate ${name}` : '';
}

/**
 * `field < any(list)` as `field < greatest(list)`, and each other ordering operator and
 * quantifier with the list's greatest or least value: the same rows (list values are never
 * null), but one comparison per row, constant-folded at planning so that an index serves it,
 * instead of one per value. An empty list is false for `any` and true for `all`, as in SQL.
 */
function extremeSql(op: Ordering, quantifier: 'any' | 'all', field: string, values: string[], type: string, collate: string, params: unknown[]): string {
  if (!values.length) return quantifier === 'any' ? 'false' : 'true';
  const below = op === 'lt' || op === 'lte';
  const extreme = below === (quantifier === 'any') ? 'greatest' : 'least';
  const cast = `::${type.startsWith('"') ? 'text' : type}`;
  return `${field} ${operatorSql(op)} ${extreme}(${values.map((v) => `${bind(params, v)}${cast}${collate}`).join(', ')})`;
}

function conditionSql(table: TableInfo, condition: Condition, params: unknown[], q: string): string {
  const field = fieldSql(table, condition.field, params, q);
  const plainType = condition.field.path.length ? (condition.field.path.at(-1)!.arrow === '->' ? 'jsonb' : 'text') : table.types.get(condition.field.column)!;
  let sql: string;
  if (condition.op === 'in') {
    sql = condition.values.length ? `${field} in (${condition.values.map((v) => bind(params, v)).join(', ')})` : 'false';
  } else if (condition.op === 'is') {
    sql = condition.value === 'not_null' ? `${field} is not null` : `${field} is ${condition.value}`;
  } else if (isFts(condition.op)) {
    const config = 'config' in condition && condition.config ? `${bind(params, condition.config)}::regconfig, ` : '';
    const vector = plainType === 'tsvector' ? field : `to_tsvector(${config}${field})`;
    sql = `${vector} @@ ${ftsFunction(condition.op)}(${config}${bind(params, condition.value)})`;
  } else {
    const pattern = condition.op === 'like' || condition.op === 'ilike';
    const sqlOp = operatorSql(condition.op);
    const quantified = 'quantifier' in condition && condition.quantifier;
    if (quantified && isOrdering(condition.op)) {
      sql = extremeSql(condition.op, condition.quantifier!, field, condition.values!, plainType, collation(table, condition.field), params);
    } else if (quantified) {
      const values = condition.values!.map((v) => (pattern ? v.replaceAll('*', '%') : v));
      sql = `${field} ${sqlOp} ${condition.quantifier}(${bind(params, values)}::${pattern || plainType.startsWith('"') ? 'text' : plainType}[])`;
    } else {
      const value = pattern ? condition.value.replaceAll('*', '%') : condition.value;
      const cast = TYPED_OPERATORS.has(condition.op) ? `::${plainType}` : '';
      sql = `${field} ${sqlOp} ${bind(params, value)}${cast}`;
    }
  }
  return condition.negate ? `not (${sql})` : sql;
}

function filterSql(table: TableInfo, filter: Filter, params: unknown[], q: string): string {
  if (filter.kind === 'condition') return conditionSql(table, filter, params, q);
  const parts = filter.children.map((child) => `(${filterSql(table, child, params, q)})`);
  const sql = parts.length ? parts.join(` ${filter.op} `) : 'true';
  return filter.negate ? `not (${sql})` : `(${sql})`;
}

/**
 * Where the rows of an embedded resource (aliased `child`) come from and how they join the parent
 * row (aliased `parent`): the table and its key conditions, or a computed relationship's function
 * called with the parent row.
 */
function embedSourceSql(embed: EmbedQuery, parent: string, child: string): { from: string; join: string[] } {
  const relationship = embed.relationship;
  if (relationship.cardinality === 'computed') {
    return { from: `${qualified(relationship.fn)}(${parent}::${relationship.rowType}) as ${child}`, join: [] };
  }
  const from = `${qualified(embed.table)} as ${child}`;
  const pairs = (left: string, leftColumns: string[], right: string, rightColumns: string[]) =>
    leftColumns.map((column, i) => `${left}.${ident(column)} = ${right}.${ident(rightColumns[i]!)}`);
  if (relationship.cardinality === 'many-to-many') {
    const { junction, toParent, toChild } = relationship;
    return { from, join: [`exists (select 1 from ${ident(embed.table.schema)}.${ident(junction)} as pgrst_j where ${[
      ...pairs('pgrst_j', toParent.columns, parent, toParent.foreignColumns),
      ...pairs('pgrst_j', toChild.columns, child, toChild.foreignColumns),
    ].join(' and ')})`] };
  }
  const { key } = relationship;
  return { from, join: relationship.parentHoldsKey
    ? pairs(child, key.foreignColumns, parent, key.columns)
    : pairs(child, key.columns, parent, key.foreignColumns) };
}

/** Whether an embedded resource is a JSON array (to-many) rather than an object or null. */
export function isToMany(embed: Pick<EmbedQuery, 'relationship'>): boolean {
  const r = embed.relationship;
  return r.cardinality === 'one-to-many' || r.cardinality === 'many-to-many' || (r.cardinality === 'computed' && !r.toOne);
}

/** Conditions on the rows of `table` (aliased `q`): its filters and its `!inner`/`is.null` embeds. */
function conditionsSql(table: TableInfo, query: RequestQuery, params: unknown[], q: string, depth: number): string[] {
  const conditions = query.filters.map((f) => filterSql(table, f, params, q));
  query.embeds.forEach((embed, n) => {
    if (!embed.inner && !embed.absent) return;
    const alias = ident(`pgrst_${depth}_${n}`);
    const source = embedSourceSql(embed, q, alias);
    const inner = [...source.join, ...conditionsSql(embed.table, embed.query, params, alias, depth + 1)];
    conditions.push(`${embed.absent ? 'not ' : ''}exists (select 1 from ${source.from} where ${inner.join(' and ') || 'true'})`);
  });
  return conditions;
}

function whereSql(table: TableInfo, query: RequestQuery, params: unknown[], q = ident(table.name)): string {
  const conditions = conditionsSql(table, query, params, q, 1);
  return conditions.length ? `where ${conditions.join(' and ')}` : '';
}

/** One embedded resource as a JSON value: an array for to-many, an object or null for to-one. */
function embedSql(parent: string, embed: EmbedQuery, params: unknown[], depth: number, n: number): string {
  const rows = ident(`pgrst_rows_${depth}_${n}`);
  const body = embedRowsSql(parent, embed, params, depth, n);
  if (!isToMany(embed)) return `(select row_to_json(${rows}) from (${body}) ${rows})`;
  return `coalesce((select json_agg(${rows}) from (${body}) ${rows}), '[]'::json)`;
}

/** The rows of an embedded resource for one parent row: at most one for to-one, the page asked for to-many. */
function embedRowsSql(parent: string, embed: EmbedQuery, params: unknown[], depth: number, n: number): string {
  const alias = ident(`pgrst_${depth}_${n}`);
  const query = embed.query;
  const source = embedSourceSql(embed, parent, alias);
  const where = [...source.join, ...conditionsSql(embed.table, query, params, alias, depth + 1)].join(' and ') || 'true';
  const p = projection(embed.table, query, params, alias, depth + 1);
  const rows = `select ${p.columns} from ${source.from} ${p.joins} where ${where} ${p.groupBy}`;
  if (!isToMany(embed)) return `${rows} limit 1`;
  const order = orderSql(embed.table, query.order, params, alias);
  const limit = query.limit === undefined ? '' : `limit ${query.limit}`;
  const offset = query.offset ? `offset ${query.offset}` : '';
  return `${rows} ${order} ${limit} ${offset}`;
}

/**
 * A spread resource (`...target(...)`) as a lateral subquery with one row: the embedded row's
 * values for to-one (nulls when there is none), a JSON array of each value for to-many.
 */
function spreadSql(parent: string, embed: EmbedQuery, params: unknown[], depth: number, n: number): string {
  const body = embedRowsSql(parent, embed, params, depth, n);
  if (!isToMany(embed)) return `(${body})`;
  const rows = ident(`pgrst_rows_${depth}_${n}`);
  const arrays = outputNames(embed.query).map((name) => `coalesce(json_agg(${rows}.${ident(name)}), '[]'::json) as ${ident(name)}`);
  return `(select ${arrays.join(', ') || 'null as pgrst_none'} from (${body}) ${rows})`;
}

/** The keys of the objects a query's select produces, spread resources' keys included. */
function outputNames(query: Pick<RequestQuery, 'select' | 'embeds'>): string[] {
  return [
    ...query.select.map((item) => item.name),
    ...query.embeds.flatMap((embed) => (!embed.shown ? [] : embed.spread ? outputNames(embed.query) : [embed.name])),
  ];
}

/** A select list with the lateral joins of its spread resources and, when it aggregates, its GROUP BY. */
interface Projection {
  columns: string;
  joins: string;
  groupBy: string;
}

/**
 * The select list: each field (cast if asked, aggregated if asked) under its output name, then
 * each shown embed, a spread's values under their own names. When an aggregate is selected, every
 * other value is grouped by, as PostgREST does.
 */
function projection(table: TableInfo, query: Pick<RequestQuery, 'select' | 'embeds'>, params: unknown[], q = ident(table.name), depth = 1): Projection {
  const items: { sql: string; aggregate: boolean }[] = query.select.map((item) => {
    let value: string;
    if (item.aggregate) value = `${item.aggregate}(${item.field.column === '' ? '*' : fieldSql(table, item.field, params, q)})`;
    else if (item.computed) value = `${qualified(item.computed)}(${q}::${qualified(table)})`;
    else value = fieldSql(table, item.field, params, q);
    return { sql: `${value}${item.cast ? `::${item.cast}` : ''} as ${ident(item.name)}`, aggregate: !!item.aggregate };
  });
  const joins: string[] = [];
  query.embeds.forEach((embed, n) => {
    if (!embed.shown) return;
    if (!embed.spread) {
      items.push({ sql: `${embedSql(q, embed, params, depth, n)} as ${ident(embed.name)}`, aggregate: false });
      return;
    }
    const alias = ident(`pgrst_spread_${depth}_${n}`);
    joins.push(`left join lateral ${spreadSql(q, embed, params, depth, n)} as ${alias} on true`);
    for (const name of outputNames(embed.query)) items.push({ sql: `${alias}.${ident(name)} as ${ident(name)}`, aggregate: false });
  });
  const grouped = items.some((item) => item.aggregate) && items.some((item) => !item.aggregate);
  return {
    columns: items.map((item) => item.sql).join(', ') || 'null as pgrst_none',
    joins: joins.join(' '),
    groupBy: grouped ? `group by ${items.flatMap((item, i) => (item.aggregate ? [] : [String(i + 1)])).join(', ')}` : '',
  };
}

function orderSql(table: TableInfo, order: OrderTerm[], params: unknown[], q = ident(table.name)): string {
  return order.length
    ? `order by ${order.map((o) => `${fieldSql(table, o.field, params, q)} ${o.descending ? 'desc' : 'asc'}${o.nulls ? ` nulls ${o.nulls}` : ''}`).join(', ')}`
    : '';
}

/**
 * GET/HEAD: the page as a JSON array, its row count and, with count=exact, the total. `source`
 * replaces the table as the row source (a set-returning function call aliased as the table).
 */
export function selectStatement(table: TableInfo, query: RequestQuery, countExact: boolean, source?: Statement): Statement {
  const params: unknown[] = [...(source?.params ?? [])];
  const from = source ? source.sql : target(table);
  const where = whereSql(table, query, params);
  const order = orderSql(table, query.order, params);
  const limit = query.limit === undefined ? '' : `limit ${query.limit}`;
  const offset = query.offset ? `offset ${query.offset}` : '';
  const total = countExact ? `(select count(*)::int from ${from} ${where})` : 'null::int';
  const p = projection(table, query, params);
  return {
    sql: `with pgrst_source as (select ${p.columns} from ${from} ${p.joins} ${where} ${p.groupBy} ${order} ${limit} ${offset})
          select ${total} as total, count(*)::int as page, 0 as inserted,
                 coalesce(json_agg(_r), '[]')::text as body from pgrst_source _r`,
    params,
  };
}

/**
 * Wraps a data-changing statement so it returns the number of changed rows (also as `total`
 * with count=exact) and, when `select` is given, those rows projected by it.
 */
function wrapWrite(dml: string, table: TableInfo, select: RequestQuery | null, params: unknown[], countExact: boolean): Statement {
  const all = table.columns.map((c) => `${ident(table.name)}.${ident(c)}`).join(', ');
  const p = select && projection(table, select, params);
  const body = p
    ? `coalesce((select json_agg(_r) from (select ${p.columns} from pgrst_source as ${ident(table.name)} ${p.joins} ${p.groupBy}) _r), '[]')::text`
    : 'null::text';
  return {
    sql: `with pgrst_source as (${dml} returning ${all}, (${ident(table.name)}.xmax = 0) as pgrst_inserted)
          select ${countExact ? 'count(*)::int' : 'null::int'} as total, count(*)::int as page,
                 (count(*) filter (where pgrst_inserted))::int as inserted, ${body} as body
          from pgrst_source`,
    params,
  };
}

function columnList(columns: string[]): string {
  return columns.map(ident).join(', ');
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
  if (columns.length && prefer.missingDefault) {
    // Each row is one parameter; a column the row leaves out is DEFAULT (Prefer: missing=default).
    params = rows.map((row) => JSON.stringify(row));
    const tuples = rows.map((row, i) => `(${columns
      .map((c) => (c in row ? `(json_populate_record(null::${target(table)}, $${i + 1}::json)).${ident(c)}` : 'default'))
      .join(', ')})`);
    dml = `insert into ${target(table)} (${columnList(columns)}) values ${tuples.join(', ')}`;
  } else if (columns.length) {
    params = [JSON.stringify(rows)];
    dml = `insert into ${target(table)} (${columnList(columns)})
       select ${columnList(columns)} from json_populate_recordset(null::${target(table)}, $1::json)`;
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
    dml += ` on conflict (${columnList(conflict)}) ${
      prefer.resolution === 'merge-duplicates' && update ? `do update set ${update}` : 'do nothing'
    }`;
  }
  return wrapWrite(dml, table, prefer.representation ? query : null, params, prefer.countExact);
}

/** PATCH: update the filtered rows with the body's columns. */
export function updateStatement(table: TableInfo, query: RequestQuery, body: Record<string, unknown>, prefer: Preferences): Statement {
  if (!query.filters.length) throw new RestError(400, '21000', 'UPDATE requires a WHERE clause');
  const columns = keysOf([body], table);
  if (!columns.length) throw new RestError(400, 'PGRST102', 'Empty or invalid json');
  const params: unknown[] = [JSON.stringify(body)];
  const set = columns.map((c) => `${ident(c)} = pgrst_body.${ident(c)}`).join(', ');
  const dml = `update ${target(table)} set ${set}
    from (select * from json_populate_record(null::${target(table)}, $1::json)) pgrst_body
    ${whereSql(table, query, params)}`;
  return wrapWrite(dml, table, prefer.representation ? query : null, params, prefer.countExact);
}

/** DELETE: delete the filtered rows. An unfiltered delete is refused, as hosted Supabase does. */
export function deleteStatement(table: TableInfo, query: RequestQuery, prefer: Preferences): Statement {
  if (!query.filters.length) throw new RestError(400, '21000', 'DELETE requires a WHERE clause');
  const params: unknown[] = [];
  const dml = `delete from ${target(table)} ${whereSql(table, query, params)}`;
  return wrapWrite(dml, table, prefer.representation ? query : null, params, prefer.countExact);
}
