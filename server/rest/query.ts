import { checkColumn, type TableInfo } from './catalog.js';
import { parseError, RestError } from './errors.js';

/** The comparison operators supported in filters. */
const COMPARISONS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=', like: 'like', ilike: 'ilike' } as const;

/** One `column=op.value` condition. */
export type Filter =
  | { column: string; negate: boolean; op: keyof typeof COMPARISONS; value: string }
  | { column: string; negate: boolean; op: 'in'; values: string[] }
  | { column: string; negate: boolean; op: 'is'; value: 'null' | 'true' | 'false' | 'unknown' };

/** One `order` term. */
export interface OrderTerm {
  column: string;
  descending: boolean;
  nulls?: 'first' | 'last';
}

/** What the query string of a table request asks for. */
export interface RequestQuery {
  /** Projected columns; `*` expanded to all. */
  select: string[];
  filters: Filter[];
  order: OrderTerm[];
  limit?: number;
  offset: number;
  /** `columns` of an insert or upsert, if given. */
  columns?: string[];
  onConflict?: string[];
}

const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);

function parseSelect(table: TableInfo, raw: string | null): string[] {
  const text = (raw ?? '*').trim() || '*';
  const out: string[] = [];
  for (const part of text.split(',')) {
    const name = part.trim();
    if (name === '*') out.push(...table.columns);
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) out.push(checkColumn(table, name));
    else throw parseError(`"failed to parse select parameter (${text})"`, 'Only plain column names and * are supported');
  }
  return [...new Set(out)];
}

/** Splits `a,"b,c",d` as PostgREST does, honouring double quotes and backslash escapes. */
function splitList(body: string): string[] {
  const values: string[] = [];
  let current = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (quoted && ch === '\\' && i + 1 < body.length) current += body[++i];
    else if (ch === '"') {
      quoted = !quoted;
      wasQuoted = true;
    } else if (ch === ',' && !quoted) {
      values.push(wasQuoted ? current : current.trim());
      current = '';
      wasQuoted = false;
    } else current += ch;
  }
  if (body.length > 0) values.push(wasQuoted ? current : current.trim());
  return values;
}

function parseFilter(table: TableInfo, column: string, raw: string): Filter {
  checkColumn(table, column);
  let rest = raw;
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const dot = rest.indexOf('.');
  const op = dot < 0 ? rest : rest.slice(0, dot);
  const value = dot < 0 ? '' : rest.slice(dot + 1);
  if (dot >= 0 && op in COMPARISONS) return { column, negate, op: op as keyof typeof COMPARISONS, value };
  if (op === 'in' && value.startsWith('(') && value.endsWith(')')) {
    return { column, negate, op: 'in', values: [...new Set(splitList(value.slice(1, -1)))] };
  }
  if (op === 'is' && (value === 'null' || value === 'true' || value === 'false' || value === 'unknown')) {
    return { column, negate, op: 'is', value };
  }
  throw parseError(`"failed to parse filter (${raw})" (line 1, column 1)`, `unexpected "${op}" expecting a supported operator`);
}

function parseOrder(table: TableInfo, raw: string): OrderTerm[] {
  return raw.split(',').map((term) => {
    const [column = '', ...modifiers] = term.trim().split('.');
    const order: OrderTerm = { column: checkColumn(table, column), descending: false };
    for (const modifier of modifiers) {
      if (modifier === 'desc') order.descending = true;
      else if (modifier === 'asc') order.descending = false;
      else if (modifier === 'nullsfirst') order.nulls = 'first';
      else if (modifier === 'nullslast') order.nulls = 'last';
      else throw parseError(`"failed to parse order (${raw})" (line 1, column 1)`);
    }
    return order;
  });
}

function parseCount(name: string, raw: string | null): number | undefined {
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw)) throw parseError(`"failed to parse ${name} parameter (${raw})"`);
  return Number(raw);
}

function parseColumnList(table: TableInfo, raw: string): string[] {
  return splitList(raw).map((name) => {
    if (!table.columns.includes(name)) {
      throw new RestError(400, 'PGRST204', `Could not find the '${name}' column of '${table.name}' in the schema cache`);
    }
    return name;
  });
}

/** Parses and validates the query string of a request on `table` (already percent-decoded). */
export function parseQuery(table: TableInfo, params: URLSearchParams): RequestQuery {
  const filters: Filter[] = [];
  for (const [key, value] of params) {
    if (RESERVED.has(key)) continue;
    if (key === 'or' || key === 'and' || key.includes('.')) {
      throw parseError(`"failed to parse logic tree (${value})"`, `${key} filters are not supported by this server`);
    }
    filters.push(parseFilter(table, key, value));
  }
  const order = params.get('order');
  const columns = params.get('columns');
  const onConflict = params.get('on_conflict');
  return {
    select: parseSelect(table, params.get('select')),
    filters,
    order: order ? parseOrder(table, order) : [],
    limit: parseCount('limit', params.get('limit')),
    offset: parseCount('offset', params.get('offset')) ?? 0,
    columns: columns ? parseColumnList(table, columns) : undefined,
    onConflict: onConflict ? splitList(onConflict).map((c) => checkColumn(table, c)) : undefined,
  };
}

/** The SQL operator of a comparison filter. */
export function comparisonSql(op: keyof typeof COMPARISONS): string {
  return COMPARISONS[op];
}
