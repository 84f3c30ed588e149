import { LARGE_TEXT_CHARS, type TableInfo } from './catalog.js';
import { RestError } from './errors.js';
import { isFts, PATTERN_OPERATORS } from './operators.js';
import type { Condition, EmbedQuery, FieldRef, Filter, OrderTerm, RequestQuery } from './request.js';

/**
 * What one REST request may ask of the database. Each limit refuses, before any SQL runs, a
 * request shape whose cost grows with something a stranger controls (a list, a tree, a pattern,
 * the data it scans), so that it cannot hold the database while every other player waits
 * (docs/rest-bounds.md: the main refusals, and every operator and its bound).
 */
export const REQUEST_BOUNDS = Object.freeze({
  /** Longest `like`/`ilike`/`match`/`imatch` pattern; the patterns of an `(any)`/`(all)` list together. */
  patternChars: 100,
  /** Longest full-text search text (`fts`, `plfts`, `phfts`, `wfts`). */
  searchChars: 100,
  /**
   * Most values in one list: `in.(...)`, `op(any).{...}`, `op(all).{...}`, the elements of a
   * `cs`/`cd`/`ov`/range value, `columns=` and `on_conflict=`.
   */
  listValues: 100,
  /** Deepest nesting of `or`/`and` groups. */
  logicDepth: 3,
  /** Most conditions in one `or`/`and` tree. */
  logicConditions: 50,
  /** Most conditions in one request: its filters and trees, embedded resources' included. */
  conditions: 100,
  /** Most items in one select list (`*` is one). */
  selectItems: 50,
  /** Most JSON steps (`->`, `->>`) after one column. */
  jsonSteps: 10,
  /** Most terms in one `order`. */
  orderTerms: 10,
  /** Largest `offset`: deeper pages are read by filtering on an ordered key. */
  offset: 100_000,
  /** Most rows a read may return when it selects a large column (one voice clip is up to 1 MB). */
  largeColumnRows: 1,
  /** Deepest nesting of embedded resources (`a(b(c(*)))` is 3). */
  embedDepth: 3,
  /** Most embedded resources in one request, at every level together. */
  embeds: 10,
});

/**
 * The operators a large column may be filtered with: `is` reads no byte of the value, and
 * `eq`/`neq` compare lengths before bytes. Any other operator reads every byte of every clip.
 */
const LARGE_COLUMN_OPERATORS: ReadonlySet<string> = new Set(['is', 'eq', 'neq']);

/** Refuses embedded resources nested deeper or listed wider than {@link REQUEST_BOUNDS}. */
export function checkEmbedBounds(depth: number, count: number): void {
  if (depth > REQUEST_BOUNDS.embedDepth || count > REQUEST_BOUNDS.embeds) {
    throw refuse(
      'TS107',
      'Too many embedded resources',
      `the select nests ${depth} levels with ${count} resources in one level; at most ${REQUEST_BOUNDS.embedDepth} levels and ${REQUEST_BOUNDS.embeds} resources`,
      'Read the related rows in a separate request',
    );
  }
}

const refuse = (code: string, message: string, details: string, hint: string) => new RestError(400, code, message, details, hint);

/**
 * Measures an `or`/`and` tree (`(a.eq.1,and(b.gt.2,c.lt.3))`) without parsing its conditions:
 * its deepest group nesting and its number of leaf conditions (3 in the example). Quoted values and `in.(...)`-style
 * lists are not groups.
 */
function measureLogicTree(tree: string): { depth: number; conditions: number } {
  const groups: boolean[] = [];
  let depth = 0;
  let conditions = 0;
  let quoted = false;
  for (let i = 0; i < tree.length; i++) {
    const ch = tree[i]!;
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === '(') {
      const logic = i === 0 || /(^|[,(.])(or|and)$/.test(tree.slice(Math.max(0, i - 5), i));
      groups.push(logic);
      if (logic) depth = Math.max(depth, groups.filter(Boolean).length);
    } else if (ch === ')') groups.pop();
    else if (ch === ',' && groups.at(-1)) conditions++;
  }
  // n separators between a group's elements: the leaves are the separators plus the root.
  return { depth, conditions: depth ? conditions + 1 : 0 };
}

/** Refuses `or`/`and` trees (`or=`, `not.and=`, `table.or=`) deeper or larger than {@link REQUEST_BOUNDS}. */
export function checkLogicTrees(params: URLSearchParams): void {
  for (const [key, value] of params) {
    if (!/(^|\.)(or|and)$/.test(key)) continue;
    const tree = value.startsWith('not.') ? value.slice(4) : value;
    const { depth, conditions } = measureLogicTree(tree);
    if (depth > REQUEST_BOUNDS.logicDepth || conditions > REQUEST_BOUNDS.logicConditions) {
      throw refuse(
        'TS103',
        'Logic tree too large',
        `${key} nests ${depth} levels and ${conditions} conditions; at most ${REQUEST_BOUNDS.logicDepth} levels and ${REQUEST_BOUNDS.logicConditions} conditions`,
        'Split the request, or filter with in.(...)',
      );
    }
  }
}

/** Whether `order` can be read from an index: its columns lead one index, in one direction. */
function followsAnIndex(table: TableInfo, order: RequestQuery['order']): boolean {
  if (new Set(order.map((term) => term.descending)).size > 1) return false;
  if (order.some((term) => term.field.path.length)) return false;
  return table.indexes.some((index) => order.every((term, i) => index[i] === term.field.column));
}

/** Every condition of `filters`, inside logic trees too. */
function conditionsOf(filters: Filter[]): Condition[] {
  return filters.flatMap((filter) => (filter.kind === 'condition' ? [filter] : conditionsOf(filter.children)));
}

/** Whether `query` can return at most one row: a limit of one, or `eq` on the whole primary key. */
function atMostOneRow(table: TableInfo, query: RequestQuery): boolean {
  return (query.limit !== undefined && query.limit <= REQUEST_BOUNDS.largeColumnRows) || pinnedByKey(table, query);
}

/** Whether `query` filters with `eq` on every column of the primary key, so that it reads one row at most. */
function pinnedByKey(table: TableInfo, query: RequestQuery): boolean {
  const pinned = new Set(query.filters.flatMap((f) => (f.kind === 'condition' && f.op === 'eq' && !f.negate && !f.field.path.length && !('quantifier' in f && f.quantifier) ? [f.field.column] : [])));
  return table.primaryKey.length > 0 && table.primaryKey.every((column) => pinned.has(column));
}

/** Every embedded resource of `query`, at every level. */
function embedsOf(query: RequestQuery): EmbedQuery[] {
  return query.embeds.flatMap((embed) => [embed, ...embedsOf(embed.query)]);
}

/** How a condition's operator is written in a request: `lt(any)`, `not.like`, `fts(english)`. */
function operatorText(condition: Condition): string {
  const modifier = 'quantifier' in condition && condition.quantifier ? `(${condition.quantifier})` : 'config' in condition && condition.config ? `(${condition.config})` : '';
  return `${condition.negate ? 'not.' : ''}${condition.op}${modifier}`;
}

/**
 * The number of values a list as written holds (`a,"b,c",d` is 3): its commas outside double
 * quotes, plus one. For an array `{1,2,3}` that is its elements, for a range `[1,5)` its two
 * bounds, for JSON at least its number of values. Counted without splitting, so that a refused
 * list costs one pass over its characters.
 */
function valueCount(list: string): number {
  let commas = 0;
  let quoted = false;
  for (let i = 0; i < list.length; i++) {
    const ch = list.charCodeAt(i);
    if (quoted && ch === 0x5c) i++;
    else if (ch === 0x22) quoted = !quoted;
    else if (ch === 0x2c && !quoted) commas++;
  }
  return commas + 1;
}

/**
 * Refuses, while a condition is parsed and before its list is split, a list of more than
 * {@link REQUEST_BOUNDS.listValues} values as written: `in.(...)`, `op(any).{...}`,
 * `op(all).{...}` or the elements of a `cs`, `cd`, `ov` or range operator's value. `form` names the
 * operator (`lt(any)`), `written` how the condition reads (`x=lt(any).{...}`).
 */
export function checkListLength(written: string, form: string, list: string): void {
  const count = valueCount(list);
  if (count > REQUEST_BOUNDS.listValues) {
    throw refuse('TS102', `${form} list too long`, `${written} lists ${count} values; at most ${REQUEST_BOUNDS.listValues}`, 'Split the list over several requests');
  }
}

/** Refuses a column reference with more JSON steps than {@link REQUEST_BOUNDS.jsonSteps}. */
function checkField(field: FieldRef): void {
  if (field.path.length > REQUEST_BOUNDS.jsonSteps) {
    throw refuse(
      'TS110',
      'JSON path too long',
      `${field.column} is followed by ${field.path.length} JSON steps; at most ${REQUEST_BOUNDS.jsonSteps}`,
      'Read the JSON value and walk it in the client',
    );
  }
}

/**
 * The words of the TS101 refusal of filtering large column `column` of `table` (one holding up
 * to `limit` characters) with operator `op` (as written, e.g. `lt(any)`), or null when `op` is
 * allowed there (`is`, `eq`, `neq`, without a quantifier or a JSON path). Realtime's
 * postgres_changes filters are refused in the same words (server/realtime/filter.ts).
 */
export function largeColumnRefusal(table: string, column: string, limit: number, op: string, written = op, onPath = false): { message: string; details: string } | null {
  if (LARGE_COLUMN_OPERATORS.has(written) && !onPath) return null;
  const kind = PATTERN_OPERATORS.has(op) ? 'Pattern filter' : isFts(op) ? 'Full-text filter' : 'Filter';
  return {
    message: `${kind} on a large column: ${table}.${column}`,
    details: `${written}${onPath ? ' on a JSON path' : ''} is allowed on text columns of at most ${LARGE_TEXT_CHARS} characters; ${column} holds up to ${limit}`,
  };
}

/** The details of the TS101 refusal of a `like`/`ilike`/`match`/`imatch` pattern of `chars` characters, or null when it is short enough. */
export function patternTooLong(op: string, chars: number): string | null {
  return chars > REQUEST_BOUNDS.patternChars ? `${op} patterns have at most ${REQUEST_BOUNDS.patternChars} characters; this one has ${chars}` : null;
}

/**
 * Refuses a condition on `table` whose cost grows with what the client sends or with the size of
 * a large column: any operator but `is`, `eq`, `neq` on a large column (TS101), a pattern or
 * search text too long (TS101), a JSON path too long (TS110). Lists were counted while parsing.
 */
function checkCondition(table: TableInfo, condition: Condition): void {
  const column = condition.field.column;
  checkField(condition.field);
  const limit = table.largeText.get(column);
  const quantified = 'quantifier' in condition && !!condition.quantifier;
  const written = operatorText(condition).replace(/^not\./, '');
  const refusal = limit === undefined ? null : largeColumnRefusal(table.name, column, limit, condition.op, written, condition.field.path.length > 0);
  if (refusal) throw refuse('TS101', refusal.message, refusal.details, 'Filter on another column (eq, in, gt, ...)');
  if (PATTERN_OPERATORS.has(condition.op) && 'value' in condition) {
    const chars = quantified ? condition.values!.reduce((sum, v) => sum + v.length, 0) : condition.value.length;
    const tooLong = quantified
      ? chars > REQUEST_BOUNDS.patternChars && `${operatorText(condition)} patterns have at most ${REQUEST_BOUNDS.patternChars} characters together; these have ${chars}`
      : patternTooLong(condition.op, chars);
    if (tooLong) throw refuse('TS101', 'Pattern too long', tooLong, 'Use a shorter pattern');
  }
  if (isFts(condition.op) && 'value' in condition && condition.value.length > REQUEST_BOUNDS.searchChars) {
    throw refuse(
      'TS101',
      'Search text too long',
      `${condition.op} search texts have at most ${REQUEST_BOUNDS.searchChars} characters; this one has ${condition.value.length}`,
      'Search for fewer words',
    );
  }
}

/**
 * Refuses what one level of a request (the table's own select, filters and order) asks beyond
 * {@link REQUEST_BOUNDS}, then each of its embedded resources in turn.
 */
function checkLevel(table: TableInfo, query: RequestQuery, read: boolean, sortNeedsIndex: boolean): void {
  // An aggregate reads every matching row whatever the limit (which counts groups): over a large
  // column it is a bulk read unless the primary key pins one row.
  const largeAggregated = [...new Set(query.select.filter((item) => item.aggregate && table.largeText.has(item.field.column)).map((item) => item.field.column))];
  if (largeAggregated.length && !pinnedByKey(table, query)) {
    throw refuse(
      'TS106',
      `Large column read in bulk: ${table.name}.${largeAggregated.join(', ')}`,
      `An aggregate of ${largeAggregated.join(', ')} reads every matching row: it needs eq on ${table.primaryKey.join(', ')}`,
      `Aggregate the other columns, or read each large value by its key`,
    );
  }
  const largeSelected = read ? [...new Set(query.select.map((item) => item.field.column).filter((column) => table.largeText.has(column)))] : [];
  if (largeSelected.length && !atMostOneRow(table, query)) {
    throw refuse(
      'TS106',
      `Large column read in bulk: ${table.name}.${largeSelected.join(', ')}`,
      `A read that selects ${largeSelected.join(', ')} returns at most ${REQUEST_BOUNDS.largeColumnRows} row: add limit=${REQUEST_BOUNDS.largeColumnRows} or eq on ${table.primaryKey.join(', ')}`,
      `Select the other columns (select=${table.columns.filter((c) => !table.largeText.has(c)).join(',')}), then each large value by its key`,
    );
  }
  if (query.selectItems > REQUEST_BOUNDS.selectItems) {
    throw refuse(
      'TS109',
      'Select list too long',
      `the select of ${table.name} lists ${query.selectItems} items; at most ${REQUEST_BOUNDS.selectItems}`,
      'Select each column once, or use *',
    );
  }
  for (const item of query.select) checkField(item.field);
  for (const embed of query.embeds) {
    const large = embed.query.select.map((item) => item.field.column).filter((column) => embed.table.largeText.has(column));
    if (large.length) {
      throw refuse(
        'TS106',
        `Large column read in bulk: ${embed.table.name}.${[...new Set(large)].join(', ')}`,
        `An embedded resource cannot select ${[...new Set(large)].join(', ')}: it is read one row at a time`,
        `Read ${embed.table.name} on its own with eq on ${embed.table.primaryKey.join(', ')}`,
      );
    }
    checkLevel(embed.table, embed.query, false, false);
  }
  for (const condition of conditionsOf(query.filters)) checkCondition(table, condition);
  if (query.offset > REQUEST_BOUNDS.offset) {
    throw refuse(
      'TS104',
      'Offset too large',
      `offset ${query.offset}; at most ${REQUEST_BOUNDS.offset}`,
      'Page by filtering on the ordered column (for example x=gt.<last x>) instead of an offset',
    );
  }
  checkOrder(table, query.order, sortNeedsIndex);
  for (const [name, list] of [['columns', query.columns], ['on_conflict', query.onConflict]] as const) {
    if (list && list.length > REQUEST_BOUNDS.listValues) {
      throw refuse('TS102', `${name} list too long`, `${name}=... lists ${list.length} values; at most ${REQUEST_BOUNDS.listValues}`, 'Split the list over several requests');
    }
  }
}

/** Refuses an `order` longer than {@link REQUEST_BOUNDS.orderTerms}, on a large column, or (when `needsIndex`) that no index serves. */
function checkOrder(table: TableInfo, order: OrderTerm[], needsIndex: boolean): void {
  const written = `order=${order.map((term) => `${term.field.column}.${term.descending ? 'desc' : 'asc'}`).join(',')}`;
  if (order.length > REQUEST_BOUNDS.orderTerms) {
    throw refuse('TS111', 'Order too long', `order on ${table.name} has ${order.length} terms; at most ${REQUEST_BOUNDS.orderTerms}`, 'Order by the columns of one index');
  }
  for (const term of order) checkField(term.field);
  const large = order.find((term) => table.largeText.has(term.field.column));
  if (large) {
    throw refuse(
      'TS105',
      `Sort on a large column: ${table.name}.${large.field.column}`,
      `${written} compares values of up to ${table.largeText.get(large.field.column)} characters`,
      'Order by another column',
    );
  }
  if (needsIndex && order.length && !followsAnIndex(table, order)) {
    throw refuse(
      'TS105',
      `Sort without an index on ${table.name}`,
      `${written} is not the leading columns of an index; indexed orders: ${table.indexes.map((index) => index.join(',')).join(' | ') || 'none'}`,
      'Order by indexed columns, all ascending or all descending',
    );
  }
}

/**
 * Refuses a parsed request on `table` that passes one of {@link REQUEST_BOUNDS} or sorts without
 * an index; `read` says whether it is a GET/HEAD, whose selected columns are then bounded too.
 * `sortNeedsIndex` is false for a function's result, which the function has already produced
 * in full: sorting it costs no more than producing it (its order is still bounded in length).
 */
export function checkQueryBounds(table: TableInfo, query: RequestQuery, read: boolean, sortNeedsIndex = true): void {
  const embeds = embedsOf(query);
  if (embeds.length > REQUEST_BOUNDS.embeds) {
    throw refuse(
      'TS107',
      'Too many embedded resources',
      `the select embeds ${embeds.length} resources in all; at most ${REQUEST_BOUNDS.embeds}`,
      'Read the related rows in a separate request',
    );
  }
  const conditions = [query, ...embeds.map((embed) => embed.query)].reduce((sum, level) => sum + conditionsOf(level.filters).length, 0);
  if (conditions > REQUEST_BOUNDS.conditions) {
    throw refuse(
      'TS108',
      'Too many conditions',
      `the request has ${conditions} conditions; at most ${REQUEST_BOUNDS.conditions}`,
      'Split the request, or filter with in.(...)',
    );
  }
  checkLevel(table, query, read, sortNeedsIndex);
}
