import { LARGE_TEXT_CHARS, type TableInfo } from './catalog.js';
import { RestError } from './errors.js';
import { PATTERN_OPERATORS, type Condition, type Filter, type RequestQuery } from './query.js';

/**
 * What one REST request may ask of the database (pattern filters also skip the large columns of
 * {@link LARGE_TEXT_CHARS}). Each limit refuses, before any SQL runs, a
 * request shape whose cost grows with data a stranger controls, so that it cannot hold the
 * database while every other player waits (README, "Requests the server refuses").
 */
export const REQUEST_BOUNDS = Object.freeze({
  /** Longest `like`/`ilike` pattern. */
  patternChars: 100,
  /** Most values in one `in.(...)` list. */
  inValues: 100,
  /** Deepest nesting of `or`/`and` groups. */
  logicDepth: 3,
  /** Most conditions in one `or`/`and` tree. */
  logicConditions: 50,
  /** Largest `offset`: deeper pages are read by filtering on an ordered key. */
  offset: 100_000,
  /** Most rows a read may return when it selects a large column (one voice clip is up to 1 MB). */
  largeColumnRows: 1,
  /** Deepest nesting of embedded resources (`a(b(c(*)))` is 3). */
  embedDepth: 3,
  /** Most embedded resources beside each other in one select. */
  embeds: 10,
});

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

/**
 * Refuses a parsed request on `table` that passes one of {@link REQUEST_BOUNDS} or sorts without
 * an index; `read` says whether it is a GET/HEAD, whose selected columns are then bounded too.
 * `sortNeedsIndex` is false for a function's result, which the function has already produced
 * in full: sorting it costs no more than producing it.
 */
export function checkQueryBounds(table: TableInfo, query: RequestQuery, read: boolean, sortNeedsIndex = true): void {
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
    checkQueryBounds(embed.table, embed.query, false, false);
  }
  for (const filter of conditionsOf(query.filters)) {
    const column = filter.field.column;
    if (PATTERN_OPERATORS.has(filter.op) && 'value' in filter) {
      const limit = table.largeText.get(column);
      if (limit !== undefined) {
        throw refuse(
          'TS101',
          `Pattern filter on a large column: ${table.name}.${column}`,
          `${filter.op} is allowed on text columns of at most ${LARGE_TEXT_CHARS} characters; ${column} holds up to ${limit}`,
          'Filter on another column (eq, in, gt, ...)',
        );
      }
      if (filter.value.length > REQUEST_BOUNDS.patternChars) {
        throw refuse(
          'TS101',
          'Pattern too long',
          `${filter.op} patterns have at most ${REQUEST_BOUNDS.patternChars} characters; this one has ${filter.value.length}`,
          'Use a shorter pattern',
        );
      }
    }
    if (filter.op === 'in' && filter.values.length > REQUEST_BOUNDS.inValues) {
      throw refuse(
        'TS102',
        'in list too long',
        `${column}=in.(...) lists ${filter.values.length} values; at most ${REQUEST_BOUNDS.inValues}`,
        'Split the list over several requests',
      );
    }
  }
  if (query.offset > REQUEST_BOUNDS.offset) {
    throw refuse(
      'TS104',
      'Offset too large',
      `offset ${query.offset}; at most ${REQUEST_BOUNDS.offset}`,
      'Page by filtering on the ordered column (for example x=gt.<last x>) instead of an offset',
    );
  }
  if (sortNeedsIndex && query.order.length && !followsAnIndex(table, query.order)) {
    throw refuse(
      'TS105',
      `Sort without an index on ${table.name}`,
      `order=${query.order.map((term) => `${term.field.column}.${term.descending ? 'desc' : 'asc'}`).join(',')} is not the leading columns of an index; indexed orders: ${table.indexes.map((index) => index.join(',')).join(' | ') || 'none'}`,
      'Order by indexed columns, all ascending or all descending',
    );
  }
}
