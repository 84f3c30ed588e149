/** The operators of a postgres_changes filter condition: exactly those hosted Realtime supports. */
export type FilterOp = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'in';

/** One `column=op.value` condition. `values` has one entry except for `in`. */
export interface Condition {
  column: string;
  op: FilterOp;
  values: string[];
  /** The column's type name, which decides how values compare. */
  type: string;
}

/** A parsed filter: conditions that must all hold (hosted joins them with AND). */
export type Filter = readonly Condition[];

const OPS = new Set<string>(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in']);
const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid']);
const TEXT = new Set(['text', 'varchar', 'bpchar', 'name', 'citext']);
/** Hosted's cap on the values of one `in` condition. */
const MAX_IN_VALUES = 100;
/** Conditions one filter may join; a subscriber's filter runs on every change of its table it may read. */
export const MAX_FILTER_CONDITIONS = 16;

class FilterError extends Error {
  constructor(reason: string) {
    super(`Error parsing \`filter\` params: ${reason}`);
  }
}

/**
 * Splits on commas outside parentheses and double quotes, as hosted does, so `in.(a,b)` and
 * `eq."a,b"` stay one condition.
 */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      current += ch;
      if (ch === '\\' && i + 1 < text.length) current += text[++i];
      else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === '"' && (current === '' || '.(,'.includes(current[current.length - 1]))) quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts;
}

/** `"a\"b"` -> `a"b`; anything not wholly quoted is kept as written. */
function unquote(value: string): string {
  if (!value.startsWith('"') || value.length < 2 || !value.endsWith('"')) return value;
  let out = '';
  for (let i = 1; i < value.length - 1; i++) {
    const ch = value[i];
    if (ch === '\\' && i + 1 < value.length - 1) out += value[++i];
    else if (ch === '"') return value;
    else out += ch;
  }
  return out;
}

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
  if (quoted) throw new FilterError('unterminated quote in in-list');
  items.push(current.trim());
  return items;
}

function checkValue(column: string, value: string, type: string): void {
  if (NUMERIC.has(type) && (value.trim() === '' || !Number.isFinite(Number(value)))) {
    throw new FilterError(`invalid input for ${type} column ${column}: "${value}"`);
  }
  if (type === 'bool' && !['true', 'false', 't', 'f'].includes(value)) throw new FilterError(`invalid input for bool column ${column}: "${value}"`);
}

function parseCondition(segment: string, columns: ReadonlyMap<string, string>): Condition {
  const text = segment.trim();
  if (text === '') throw new FilterError('filter must not contain empty segments (check for extra commas)');
  const eq = text.indexOf('=');
  if (eq < 0) throw new FilterError(JSON.stringify([text]));
  const column = text.slice(0, eq);
  const rest = text.slice(eq + 1);
  const dot = rest.indexOf('.');
  if (dot < 0) throw new FilterError(JSON.stringify([rest]));
  const op = rest.slice(0, dot);
  const raw = rest.slice(dot + 1);
  // Hosted's message for any other operator (like, match, is, not., fts, ...): they are refused.
  if (!OPS.has(op)) throw new FilterError(JSON.stringify([op, raw]).replace(/","/g, '", "'));
  const type = columns.get(column);
  if (type === undefined) throw new FilterError(`invalid column for filter ${column}`);
  const filterOp = op as FilterOp;
  if (filterOp === 'in') {
    if (raw.length < 2 || !raw.startsWith('(') || !raw.endsWith(')')) throw new FilterError('`in` filter value must be wrapped by parentheses');
    const values = parseList(raw.slice(1, -1));
    if (values.length > MAX_IN_VALUES) throw new FilterError(`too many values for \`in\` filter. Maximum ${MAX_IN_VALUES}`);
    for (const value of values) checkValue(column, value, type);
    return { column, op: filterOp, values, type };
  }
  const value = unquote(raw);
  checkValue(column, value, type);
  return { column, op: filterOp, values: [value], type };
}

/**
 * Parses a filter string such as `victim_id=eq.ABC`, `id=in.(1,2,3)` or `x=gte.0,x=lt.100`
 * (conditions joined by AND). `columns` maps the table's column names to their type names.
 * Throws with hosted's message for the client; an empty filter has no conditions.
 */
export function parseFilter(text: string, columns: ReadonlyMap<string, string>): Filter {
  if (text.trim() === '') return [];
  const segments = splitTopLevel(text.trim());
  if (segments.length > MAX_FILTER_CONDITIONS) throw new FilterError(`a filter joins at most ${MAX_FILTER_CONDITIONS} conditions`);
  return segments.map((segment) => parseCondition(segment, columns));
}

function compare(actual: unknown, wanted: string, type: string): number {
  if (NUMERIC.has(type)) return Number(actual) - Number(wanted);
  if (type === 'bool') return Number(actual === true || actual === 't') - Number(wanted === 'true' || wanted === 't');
  const text = asText(actual);
  return text < wanted ? -1 : text > wanted ? 1 : 0;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The first condition of `filter` that holds only where a text column equals one of a few
 * values (a plain `eq` or `in` on a text column), or null. A row passes the filter only if
 * {@link equalityKey} of its value for that column is among those values, so subscribers can
 * be looked up by that key instead of each being asked about every change.
 */
export function equalityCondition(filter: Filter): Condition | null {
  return filter.find((condition) => (condition.op === 'eq' || condition.op === 'in') && TEXT.has(condition.type)) ?? null;
}

/** The text an {@link equalityCondition} compares a row's value as; null for a missing or NULL value, which no such condition passes. */
export function equalityKey(value: unknown): string | null {
  return value === null || value === undefined ? null : asText(value);
}

/** Whether `actual` (not NULL) passes `condition`. */
function passes(condition: Condition, actual: unknown): boolean {
  if (condition.op === 'in') return condition.values.some((v) => compare(actual, v, condition.type) === 0);
  const c = compare(actual, condition.values[0]!, condition.type);
  switch (condition.op) {
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
    default:
      return c >= 0;
  }
}

/**
 * Whether `row` passes every condition of `filter`, looking only at the columns `visible` allows
 * (all when null): the columns the subscriber may read of the row it is delivered. As on hosted
 * Realtime, a column absent from the row (or not visible) fails closed, and so does a NULL, as
 * SQL's comparison with NULL is never true.
 */
export function matchesFilter(filter: Filter, row: Record<string, unknown>, visible: ReadonlySet<string> | null = null): boolean {
  for (const condition of filter) {
    if (visible && !visible.has(condition.column)) return false;
    if (!(condition.column in row)) return false;
    const actual = row[condition.column];
    if (actual === null || actual === undefined || !passes(condition, actual)) return false;
  }
  return true;
}
