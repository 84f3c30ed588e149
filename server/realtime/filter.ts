/** The operators of a postgres_changes filter. */
export type FilterOp = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'in';

/** A parsed `column=op.value` filter. `values` has one entry except for `in`. */
export interface Filter {
  column: string;
  op: FilterOp;
  values: string[];
}

const OPS = new Set<string>(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in']);
const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid']);
const MAX_IN_VALUES = 100;

/** Splits `a,"b,c",d` on commas outside double quotes and unquotes each item. */
function parseList(list: string): string[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === '\\' && quoted && i + 1 < list.length) current += list[++i];
    else if (ch === ',' && !quoted) {
      items.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (quoted) throw new Error('unterminated quote in in-list');
  items.push(current.trim());
  return items;
}

/**
 * Parses a filter string such as `victim_id=eq.ABC` or `id=in.(1,2,3)`. `columns` maps the
 * table's column names to their type names. Throws with a message fit for the client.
 */
export function parseFilter(text: string, columns: ReadonlyMap<string, string>): Filter {
  const eq = text.indexOf('=');
  const dot = text.indexOf('.', eq + 1);
  if (eq <= 0 || dot < 0) throw new Error(`Error parsing \`filter\` params: ${text}`);
  const column = text.slice(0, eq);
  const op = text.slice(eq + 1, dot);
  const value = text.slice(dot + 1);
  if (!OPS.has(op)) throw new Error(`Error parsing \`filter\` params: unknown operator ${op}`);
  if (!columns.has(column)) throw new Error(`Error parsing \`filter\` params: unknown column ${column}`);
  if (op !== 'in') return { column, op: op as FilterOp, values: [value] };
  if (!value.startsWith('(') || !value.endsWith(')')) throw new Error('Error parsing `filter` params: in needs (a,b,...)');
  const values = parseList(value.slice(1, -1));
  if (values.length > MAX_IN_VALUES) throw new Error(`Error parsing \`filter\` params: in allows at most ${MAX_IN_VALUES} values`);
  return { column, op: 'in', values };
}

function compare(actual: unknown, wanted: string, type: string): number {
  if (NUMERIC.has(type)) return Number(actual) - Number(wanted);
  if (type === 'bool') return Number(actual === true || actual === 't') - Number(wanted === 'true' || wanted === 't');
  const text = typeof actual === 'string' ? actual : JSON.stringify(actual);
  return text < wanted ? -1 : text > wanted ? 1 : 0;
}

/**
 * Whether `row` passes `filter`. As on hosted Realtime, a column absent from the row fails
 * closed and NULL satisfies no operator.
 */
export function matchesFilter(filter: Filter, row: Record<string, unknown>, type: string): boolean {
  if (!(filter.column in row)) return false;
  const actual = row[filter.column];
  if (actual === null || actual === undefined) return false;
  if (filter.op === 'in') return filter.values.some((v) => compare(actual, v, type) === 0);
  const c = compare(actual, filter.values[0], type);
  switch (filter.op) {
    case 'eq':
      return c === 0;
    case 'neq':
      return c !== 0;
    case 'lt':
      return c < 0;
    case 'lte':
      return c <= 0;
    case 'gt':
      return c > 0;
    case 'gte':
      return c >= 0;
  }
}
