import { setFlagsFromString } from 'node:v8';

/** The operators of a postgres_changes filter condition, as hosted Realtime accepts them. */
export type FilterOp = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'in' | 'like' | 'ilike' | 'is' | 'match' | 'imatch' | 'isdistinct';

/** One `column=[not.]op.value` condition. `values` has one entry except for `in`. */
export interface Condition {
  column: string;
  op: FilterOp;
  values: string[];
  /** Written with `not.`: the condition's verdict is inverted (NULL still fails, as in SQL). */
  negate: boolean;
  /** The column's type name, which decides how values compare. */
  type: string;
  /** For like, ilike, match and imatch: the pattern, compiled for the linear-time engine. */
  pattern: RegExp | null;
}

/** A parsed filter: conditions that must all hold (hosted joins them with AND). */
export type Filter = readonly Condition[];

const OPS = new Set<string>(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'like', 'ilike', 'is', 'match', 'imatch', 'isdistinct']);
const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid']);
const TEXT = new Set(['text', 'varchar', 'bpchar', 'name', 'citext']);
const IS_VALUES = new Set(['null', 'true', 'false', 'unknown']);
/** Hosted's cap on the values of one `in` condition. */
const MAX_IN_VALUES = 100;
/** Conditions one filter may join; a subscriber's filter runs on every change of its table. */
export const MAX_FILTER_CONDITIONS = 16;
/** Longest like/match pattern accepted. */
export const MAX_PATTERN_LENGTH = 256;

// Patterns come from strangers and run on every change: they compile only for V8's
// non-backtracking engine (the `l` flag), so no pattern can take more than linear time.
setFlagsFromString('--enable-experimental-regexp-engine');

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

/** A LIKE pattern as a regular expression: `%` any run, `_` one character, `\` escapes. */
function likeSource(pattern: string): string {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]);
    else if (ch === '%') source += '[\\s\\S]*';
    else if (ch === '_') source += '[\\s\\S]';
    else source += escapeRegExp(ch);
  }
  return `^${source}$`;
}

function escapeRegExp(ch: string): string {
  return /[.*+?^${}()|[\]\\/-]/.test(ch) ? `\\${ch}` : ch;
}

/**
 * Lower-cases a pattern's literal letters, leaving escapes (`\S`, `\W`, ...) alone: the linear
 * engine has no `i` flag, so case-insensitive patterns run on lower-cased text instead.
 */
function lowerPattern(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    if (source[i] === '\\' && i + 1 < source.length) out += source[i] + source[++i];
    else out += source[i].toLowerCase();
  }
  return out;
}

function compilePattern(op: FilterOp, value: string): RegExp {
  const insensitive = op === 'ilike' || op === 'imatch';
  let source = op === 'like' || op === 'ilike' ? likeSource(value) : value;
  if (insensitive) source = lowerPattern(source);
  try {
    return new RegExp(source, 'l');
  } catch (error) {
    const reason = (error as Error).message.replace(/^Invalid regular expression: /, '');
    throw new FilterError(`invalid regular expression for ${op} filter: ${reason}`);
  }
}

function checkValue(column: string, op: FilterOp, value: string, type: string): void {
  if (op === 'is') {
    if (!IS_VALUES.has(value)) throw new FilterError('invalid value for is filter: must be null, true, false, or unknown');
    if (value !== 'null' && type !== 'bool') throw new FilterError(`is ${value} filter requires a boolean column, got ${type}`);
    return;
  }
  if (op === 'like' || op === 'ilike' || op === 'match' || op === 'imatch') {
    if (!TEXT.has(type)) throw new FilterError(`operator ${op} requires a text-compatible column type, got ${type}`);
    if (value.length > MAX_PATTERN_LENGTH) throw new FilterError(`${op} patterns are limited to ${MAX_PATTERN_LENGTH} characters`);
    return;
  }
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
  let rest = text.slice(eq + 1);
  const negate = rest.startsWith('not.');
  if (negate) rest = rest.slice(4);
  const dot = rest.indexOf('.');
  if (dot < 0) throw new FilterError(JSON.stringify([rest]));
  const op = rest.slice(0, dot);
  const raw = rest.slice(dot + 1);
  if (!OPS.has(op)) throw new FilterError(JSON.stringify([op, raw]).replace(/","/g, '", "'));
  const type = columns.get(column);
  if (type === undefined) throw new FilterError(`invalid column for filter ${column}`);
  const filterOp = op as FilterOp;
  if (filterOp === 'in') {
    if (raw.length < 2 || !raw.startsWith('(') || !raw.endsWith(')')) throw new FilterError('`in` filter value must be wrapped by parentheses');
    const values = parseList(raw.slice(1, -1));
    if (values.length > MAX_IN_VALUES) throw new FilterError(`too many values for \`in\` filter. Maximum ${MAX_IN_VALUES}`);
    for (const value of values) checkValue(column, filterOp, value, type);
    return { column, op: filterOp, values, negate, type, pattern: null };
  }
  const value = unquote(raw);
  checkValue(column, filterOp, value, type);
  const pattern = filterOp === 'like' || filterOp === 'ilike' || filterOp === 'match' || filterOp === 'imatch' ? compilePattern(filterOp, value) : null;
  return { column, op: filterOp, values: [value], negate, type, pattern };
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
  return filter.find((condition) => !condition.negate && (condition.op === 'eq' || condition.op === 'in') && TEXT.has(condition.type)) ?? null;
}

/** The text an {@link equalityCondition} compares a row's value as; null for a missing or NULL value, which no such condition passes. */
export function equalityKey(value: unknown): string | null {
  return value === null || value === undefined ? null : asText(value);
}

/** SQL's three-valued verdict of one condition: null where SQL gives NULL. */
function verdict(condition: Condition, actual: unknown): boolean | null {
  const isNull = actual === null || actual === undefined;
  switch (condition.op) {
    case 'is': {
      const wanted = condition.values[0];
      if (wanted === 'null' || wanted === 'unknown') return isNull;
      return !isNull && compare(actual, wanted, 'bool') === 0;
    }
    case 'isdistinct':
      return isNull || compare(actual, condition.values[0], condition.type) !== 0;
    default:
      break;
  }
  if (isNull) return null;
  if (condition.pattern) {
    const text = asText(actual);
    return condition.pattern.test(condition.op === 'ilike' || condition.op === 'imatch' ? text.toLowerCase() : text);
  }
  if (condition.op === 'in') return condition.values.some((v) => compare(actual, v, condition.type) === 0);
  const c = compare(actual, condition.values[0], condition.type);
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
 * Whether `row` passes every condition of `filter`. As on hosted Realtime, a column absent from
 * the row fails closed, and a condition whose SQL verdict is NULL (a NULL compared with `eq`,
 * `neq`, `not.eq`, ...) fails; `is` and `isdistinct` are the operators that see NULLs.
 */
export function matchesFilter(filter: Filter, row: Record<string, unknown>): boolean {
  for (const condition of filter) {
    if (!(condition.column in row)) return false;
    const result = verdict(condition, row[condition.column]);
    if (result === null || result === condition.negate) return false;
  }
  return true;
}
