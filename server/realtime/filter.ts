import { REQUEST_BOUNDS, largeColumnRefusal, patternTooLong } from '../rest/bounds.js';
import type { TableInfo } from './catalog.js';
import { compileLike, compileRegex, PatternError } from './patterns.js';
import type { Matcher } from './patterns.js';

/** The operators of a postgres_changes filter condition: those upstream Realtime accepts, each also negated by a `not.` prefix. */
export type FilterOp = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'in' | 'like' | 'ilike' | 'match' | 'imatch' | 'is' | 'isdistinct';

/** One `column=[not.]op.value` condition. `values` has one entry except for `in`. */
export interface Condition {
  column: string;
  op: FilterOp;
  /** Whether the condition was written `not.op`: it holds where `op` is false (never on an unknown, as SQL's NOT). */
  negate: boolean;
  values: string[];
  /** The column's type name, which decides how values compare. */
  type: string;
  /** The compiled pattern of `like`, `ilike`, `match` and `imatch`. */
  matcher?: Matcher;
}

/** A parsed filter: conditions that must all hold (hosted joins them with AND). */
export type Filter = readonly Condition[];

/** What a filter is parsed against: the table's name, its columns' types and its large columns. */
export type FilterTable = Pick<TableInfo, 'name' | 'types' | 'typeNames' | 'largeText'>;

const OPS = new Set<string>(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'like', 'ilike', 'match', 'imatch', 'is', 'isdistinct']);
const PATTERN_OPS = new Set<string>(['like', 'ilike', 'match', 'imatch']);
/** The keywords `is` compares with. */
const IS_VALUES = new Set(['null', 'true', 'false', 'unknown']);
const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid']);
const TEXT = new Set(['text', 'varchar', 'bpchar', 'name', 'citext']);
/** Conditions one filter may join; a subscriber's filter runs on every change of its table it may read. */
export const MAX_FILTER_CONDITIONS = 16;

class FilterError extends Error {
  constructor(reason: string) {
    super(`Error parsing \`filter\` params: ${reason}`);
  }
}

/** How upstream prints the parts of a segment it could not read: `["foo", "hey"]`. */
function unreadable(parts: string[]): FilterError {
  return new FilterError(`[${parts.map((part) => JSON.stringify(part)).join(', ')}]`);
}

/**
 * Splits on commas outside parentheses and double quotes, as upstream does, so `in.(a,b)` and
 * `eq."a,b"` stay one condition. A double quote opens a quoted value only after `.`, `(` or `,`.
 */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  let previous = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      current += ch;
      if (ch === '\\' && i + 1 < text.length) current += text[++i];
      else if (ch === '"') quoted = false;
      previous = ch;
      continue;
    }
    if (ch === '"' && '.(,'.includes(previous) && previous !== '') quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
      previous = '';
      continue;
    }
    current += ch;
    previous = ch;
  }
  parts.push(current);
  return parts;
}

/** `"a\"b"` -> `a"b`: a value wholly in double quotes, backslash taking the next character as it is; anything else is kept as written. */
function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '"') return i === value.length - 1 ? out : value;
    if (ch === '\\' && i + 1 < value.length) out += value[++i];
    else out += ch;
  }
  return value;
}

/** Splits `a,"b,c",d` on commas outside double quotes and unquotes each item, as PostgreSQL reads an array literal. */
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

/** Compiles the pattern of a `like`, `ilike`, `match` or `imatch` condition, within the REST bound on pattern length. */
function compilePattern(op: FilterOp, typeName: string, isText: boolean, pattern: string): Matcher {
  if (!isText) throw new FilterError(`operator ${op} requires a text-compatible column type, got ${typeName}`);
  const tooLong = patternTooLong(op, pattern.length);
  if (tooLong) throw new FilterError(`Pattern too long: ${tooLong}`);
  try {
    if (op === 'like' || op === 'ilike') return compileLike(pattern, op === 'ilike');
    return compileRegex(pattern, op === 'imatch');
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    throw new FilterError(op === 'like' || op === 'ilike' ? error.message : `invalid regular expression for ${op} filter: ${error.message}`);
  }
}

/** Checks the value of a condition on `column` of `table` and returns the condition. */
function readCondition(column: string, op: FilterOp, negate: boolean, raw: string, table: FilterTable): Condition {
  const type = table.types.get(column)!;
  const typeName = table.typeNames.get(column) ?? type;
  if (op === 'in') {
    const values = parseList(raw.slice(1, -1));
    if (values.length > REQUEST_BOUNDS.listValues) throw new FilterError(`too many values for \`in\` filter. Maximum ${REQUEST_BOUNDS.listValues}`);
    for (const value of values) checkValue(column, value, type);
    return { column, op, negate, values, type };
  }
  const value = unquote(raw);
  if (op === 'is') {
    if (!IS_VALUES.has(value)) throw new FilterError('invalid value for is filter: must be null, true, false, or unknown');
    if (value !== 'null' && type !== 'bool') throw new FilterError(`is ${value} filter requires a boolean column, got ${typeName}`);
    return { column, op, negate, values: [value], type };
  }
  if (PATTERN_OPS.has(op)) return { column, op, negate, values: [value], type, matcher: compilePattern(op, typeName, TEXT.has(type), value) };
  checkValue(column, value, type);
  return { column, op, negate, values: [value], type };
}

function parseCondition(segment: string, table: FilterTable): Condition {
  const text = segment.trim();
  if (text === '') throw new FilterError('filter must not contain empty segments (check for extra commas)');
  const eq = text.indexOf('=');
  if (eq < 0) throw unreadable([text]);
  const column = text.slice(0, eq);
  const rest = text.slice(eq + 1);
  const negate = rest.startsWith('not.');
  const opValue = negate ? rest.slice(4) : rest;
  const dot = opValue.indexOf('.');
  if (dot < 0) throw unreadable([opValue]);
  const op = opValue.slice(0, dot);
  const raw = opValue.slice(dot + 1);
  if (!OPS.has(op)) throw unreadable([op, raw]);
  if (op === 'in' && (raw.length < 2 || !raw.startsWith('(') || !raw.endsWith(')'))) throw new FilterError('`in` filter value must be wrapped by parentheses');
  if (!table.types.has(column)) throw new FilterError(`invalid column for filter ${column}`);
  const limit = table.largeText.get(column);
  const refusal = limit === undefined ? null : largeColumnRefusal(table.name, column, limit, op);
  if (refusal) throw new FilterError(`${refusal.message} (${refusal.details})`);
  return readCondition(column, op as FilterOp, negate, raw, table);
}

/**
 * Parses a filter string such as `victim_id=eq.ABC`, `id=in.(1,2,3)`, `name=not.ilike.a%` or
 * `x=gte.0,x=lt.100` (conditions joined by AND) on `table`, with upstream Realtime's operators
 * and error texts, within the bounds REST puts on the same operators (docs/rest-bounds.md):
 * on a large column only `eq`, `neq` and `is`; patterns of at most 100 characters; lists of at
 * most 100 values. Throws with the message for the client; an empty filter has no conditions.
 */
export function parseFilter(text: string, table: FilterTable): Filter {
  if (text.trim() === '') return [];
  const segments = splitTopLevel(text.trim());
  if (segments.length > MAX_FILTER_CONDITIONS) throw new FilterError(`a filter joins at most ${MAX_FILTER_CONDITIONS} conditions`);
  return segments.map((segment) => parseCondition(segment, table));
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
 * values (a plain `eq` or `in` on a text column, not negated), or null. A row passes the filter
 * only if {@link equalityKey} of its value for that column is among those values, so subscribers
 * can be looked up by that key instead of each being asked about every change.
 */
export function equalityCondition(filter: Filter): Condition | null {
  return filter.find((condition) => (condition.op === 'eq' || condition.op === 'in') && !condition.negate && TEXT.has(condition.type)) ?? null;
}

/** The text an {@link equalityCondition} compares a row's value as; null for a missing or NULL value, which no such condition passes. */
export function equalityKey(value: unknown): string | null {
  return value === null || value === undefined ? null : asText(value);
}

/** `condition`'s operator on a NULL value: only `is` and `isdistinct` know an answer, the others are unknown (null). */
function onNull(condition: Condition): boolean | null {
  if (condition.op === 'is') return condition.values[0] === 'null' || condition.values[0] === 'unknown';
  if (condition.op === 'isdistinct') return true;
  return null;
}

/** `condition`'s operator (not negated) on `actual`, which is not NULL. */
function operatorHolds(condition: Condition, actual: unknown): boolean {
  const wanted = condition.values[0]!;
  switch (condition.op) {
    case 'in':
      return condition.values.some((v) => compare(actual, v, condition.type) === 0);
    case 'is':
      return wanted === 'true' ? actual === true : wanted === 'false' ? actual === false : false;
    case 'like':
    case 'ilike':
    case 'match':
    case 'imatch':
      return condition.matcher!(asText(actual));
    default:
      return comparisonHolds(condition.op, compare(actual, wanted, condition.type));
  }
}

function comparisonHolds(op: FilterOp, c: number): boolean {
  switch (op) {
    case 'eq':
      return c === 0;
    case 'neq':
    case 'isdistinct':
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
 * (all when null): the columns the subscriber may read of the row it is delivered. As upstream
 * evaluates them in SQL, a column absent from the row (or not visible) fails closed, and so does
 * a NULL under any operator but `is` and `isdistinct`, negated or not (NOT of unknown is unknown).
 */
export function matchesFilter(filter: Filter, row: Record<string, unknown>, visible: ReadonlySet<string> | null = null): boolean {
  for (const condition of filter) {
    if (visible && !visible.has(condition.column)) return false;
    if (!(condition.column in row)) return false;
    const actual = row[condition.column];
    const holds = actual === null || actual === undefined ? onNull(condition) : operatorHolds(condition, actual);
    if (holds === null || holds === condition.negate) return false;
  }
  return true;
}
