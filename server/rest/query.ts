import { checkColumn, type Catalog, type TableInfo } from './catalog.js';
import { checkEmbedBounds, checkListLength } from './bounds.js';
import { computedColumn, resolveEmbed } from './embed.js';
import { parseError, RestError } from './errors.js';
import { isBinaryOperator, isFts, TYPED_OPERATORS } from './operators.js';
import type { Aggregate, Condition, EmbedQuery, FieldRef, Filter, LogicTree, OrderTerm, RequestQuery, SelectField } from './request.js';

const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_ $]*$/;
const CAST = /^[A-Za-z_][A-Za-z0-9_]*(\[\])?$/;

/** Splits `text` at top-level `separator`s, outside double quotes and parentheses. */
function splitTopLevel(text: string, separator = ','): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '\\' && i + 1 < text.length) current += ch + text[++i];
      else {
        if (ch === '"') quoted = false;
        current += ch;
      }
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === '(' || ch === '{' || ch === '[') depth++;
    else if (ch === ')' || ch === '}' || ch === ']') depth--;
    if (ch === separator && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** Splits `a,"b,c",d` as PostgREST does, honouring double quotes and backslash escapes. */
export function splitList(body: string): string[] {
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

const unquote = (name: string) => (name.startsWith('"') && name.endsWith('"') && name.length >= 2 ? name.slice(1, -1) : name);

/** Reads `column->a->>b` against `table`. */
function parseField(table: TableInfo, text: string, context: string, label = table.name): FieldRef {
  const [head = '', ...steps] = text.trim().split(/(->>?)/);
  const column = unquote(head.trim());
  if (!IDENTIFIER.test(column) && !table.columns.includes(column)) throw parseError(`"failed to parse ${context}"`, `unexpected "${column}"`);
  checkColumn(table, column, label);
  const path: FieldRef['path'] = [];
  for (let i = 0; i < steps.length; i += 2) {
    const arrow = steps[i] as '->' | '->>';
    const key = unquote((steps[i + 1] ?? '').trim());
    if (!key || (path.at(-1)?.arrow === '->>')) throw parseError(`"failed to parse ${context}"`, `unexpected JSON path in "${text}"`);
    path.push({ arrow, key });
  }
  return { column, path };
}

interface EmbedItem {
  spread: boolean;
  name: string;
  target: string;
  hint?: string;
  inner: boolean;
  select: string;
}

const EMBED = /^(\.\.\.)?(?:("[^"]+"|[A-Za-z_][A-Za-z0-9_]*):)?([A-Za-z_][A-Za-z0-9_]*)((?:![A-Za-z_][A-Za-z0-9_]*)*)\((.*)\)$/s;

/**
 * Reads a select list; `label` names the table in errors (PostgREST's alias: `messages_1` for an
 * embedded resource).
 */
function parseSelect(catalog: Catalog, table: TableInfo, text: string, embeds: EmbedItem[], label: string): SelectField[] {
  const out: SelectField[] = [];
  if (!text.trim()) return out;
  for (const part of splitTopLevel(text)) {
    const item = part.trim();
    if (item === '*') {
      out.push(...table.columns.map((column) => ({ field: { column, path: [] }, name: column })));
      continue;
    }
    const alias = /^("[^"]+"|[A-Za-z_][A-Za-z0-9_]*):(?!:)(.*)$/.exec(item);
    let rest = alias ? alias[2]! : item;
    let cast: string | undefined;
    const castAt = rest.lastIndexOf('::');
    if (castAt > 0 && !rest.slice(castAt).includes('(')) {
      cast = rest.slice(castAt + 2).trim();
      rest = rest.slice(0, castAt);
      if (!CAST.test(cast)) throw parseError(`"failed to parse select parameter (${text})"`, `unexpected cast "${cast}"`);
    }
    const aggregate = /^(?:(.*)\.)?(count|sum|avg|min|max)\(\)$/.exec(rest.trim());
    if (aggregate && (aggregate[1] !== undefined || aggregate[2] === 'count')) {
      const fn = aggregate[2] as Aggregate;
      const field = aggregate[1] === undefined ? { column: '', path: [] } : parseField(table, aggregate[1], `select parameter (${text})`, label);
      out.push({ field, aggregate: fn, cast, name: alias ? unquote(alias[1]!) : fn });
      continue;
    }
    const embed = EMBED.exec(item);
    if (embed) {
      const marks = embed[4]!.split('!').filter(Boolean);
      const inner = marks.includes('inner');
      const hint = marks.find((m) => m !== 'inner' && m !== 'left');
      embeds.push({ spread: !!embed[1], name: embed[2] ? unquote(embed[2]) : embed[3]!, target: embed[3]!, hint, inner, select: embed[5]! });
      continue;
    }
    if (item.includes('(') || item.startsWith('...')) throw parseError(`"failed to parse select parameter (${text})"`, `unexpected "${item}"`);
    // `target(count)`: the legacy count of the embedded rows, where no column is named count.
    if (label !== table.name && unquote(rest.trim()) === 'count' && !table.columns.includes('count')) {
      out.push({ field: { column: '', path: [] }, aggregate: 'count', cast, name: alias ? unquote(alias[1]!) : 'count' });
      continue;
    }
    const computed = table.columns.includes(unquote(rest.trim())) ? undefined : computedColumn(catalog, table, unquote(rest.trim()));
    if (computed) {
      out.push({ field: { column: computed.name, path: [] }, computed, cast, name: alias ? unquote(alias[1]!) : computed.name });
      continue;
    }
    const field = parseField(table, rest, `select parameter (${text})`, label);
    const name = alias ? unquote(alias[1]!) : field.path.at(-1)?.key ?? field.column;
    out.push({ field, cast, name });
  }
  return out;
}

/** Reads `op.value`, `not.op.value`, `op(any).{a,b}` or `fts(config).value` for `field`. */
function parseCondition(field: FieldRef, raw: string): Condition {
  let rest = raw;
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const dot = rest.indexOf('.');
  const head = dot < 0 ? rest : rest.slice(0, dot);
  const value = dot < 0 ? '' : rest.slice(dot + 1);
  const modified = /^([a-z]+)\(([^)]*)\)$/.exec(head);
  const op = modified ? modified[1]! : head;
  const modifier = modified?.[2];
  const fail = () => parseError(`"failed to parse filter (${raw})" (line 1, column 1)`, `unexpected "${head}" expecting an operator`);
  if (dot < 0) throw fail();
  if (isFts(op)) return { kind: 'condition', field, negate, op, value, config: modifier || undefined };
  const not = negate ? 'not.' : '';
  if (isBinaryOperator(op)) {
    if (modifier === undefined) {
      if (TYPED_OPERATORS.has(op)) checkListLength(`${field.column}=${not}${op}.${value.slice(0, 1)}...${value.slice(-1)}`, op, value);
      return { kind: 'condition', field, negate, op, value };
    }
    if ((modifier !== 'any' && modifier !== 'all') || !/^\{.*\}$/s.test(value)) throw fail();
    checkListLength(`${field.column}=${not}${op}(${modifier}).{...}`, `${op}(${modifier})`, value);
    // A set: repeating a value changes no answer, and `eq(all)`/`neq(any)` then stop at the second value.
    return { kind: 'condition', field, negate, op, value, quantifier: modifier, values: [...new Set(splitList(value.slice(1, -1)))] };
  }
  if (op === 'in' && modifier === undefined && value.startsWith('(') && value.endsWith(')')) {
    checkListLength(`${field.column}=${not}in.(...)`, 'in', value);
    return { kind: 'condition', field, negate, op: 'in', values: [...new Set(splitList(value.slice(1, -1)))] };
  }
  if (op === 'is' && ['null', 'not_null', 'true', 'false', 'unknown'].includes(value.toLowerCase())) {
    return { kind: 'condition', field, negate, op: 'is', value: value.toLowerCase() as 'null' };
  }
  throw fail();
}

/** Reads the inside of a logic tree, `(a.eq.1,and(b.gt.2,c.lt.3))`. */
function parseLogic(table: TableInfo, op: 'and' | 'or', negate: boolean, raw: string): LogicTree {
  if (!raw.startsWith('(') || !raw.endsWith(')')) {
    throw parseError(`"failed to parse logic tree (${raw})" (line 1, column 1)`, 'expecting "("');
  }
  const children = splitTopLevel(raw.slice(1, -1)).map((part): Filter => {
    const item = part.trim();
    const group = /^(not\.)?(and|or)(\(.*\))$/s.exec(item);
    if (group) return parseLogic(table, group[2] as 'and' | 'or', !!group[1], group[3]!);
    const firstOp = /\.(not\.)?[a-z]+(\([^)]*\))?\./.exec(item);
    if (!firstOp) throw parseError(`"failed to parse logic tree (${raw})" (line 1, column 1)`, `unexpected "${item}"`);
    return parseCondition(parseField(table, item.slice(0, firstOp.index), `logic tree (${raw})`), item.slice(firstOp.index + 1));
  });
  return { kind: 'logic', op, negate, children };
}

function parseOrder(table: TableInfo, raw: string): OrderTerm[] {
  return splitTopLevel(raw).map((term) => {
    const parts = term.trim().split('.');
    const modifiers: string[] = [];
    while (parts.length > 1 && ['asc', 'desc', 'nullsfirst', 'nullslast'].includes(parts.at(-1)!)) modifiers.unshift(parts.pop()!);
    const order: OrderTerm = { field: parseField(table, parts.join('.'), `order (${raw})`), descending: false };
    for (const modifier of modifiers) {
      if (modifier === 'desc') order.descending = true;
      else if (modifier === 'asc') order.descending = false;
      else if (modifier === 'nullsfirst') order.nulls = 'first';
      else order.nulls = 'last';
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

/**
 * Parses the filters of a query string (`field=op.value`, `or=(...)`, `not.and=(...)`), skipping
 * `skip` (parameters that mean something else, such as an RPC's arguments).
 */
export function parseFilters(table: TableInfo, params: URLSearchParams, skip: ReadonlySet<string> = new Set()): Filter[] {
  const filters: Filter[] = [];
  for (const [key, value] of params) {
    if (RESERVED.has(key) || skip.has(key)) continue;
    const logic = /^(not\.)?(and|or)$/.exec(key);
    if (logic) {
      filters.push(parseLogic(table, logic[2] as 'and' | 'or', !!logic[1], value));
      continue;
    }
    if (key.includes('.')) {
      throw new RestError(400, 'PGRST108', `'${key.split('.')[0]}' is not an embedded resource in this request`, null,
        `Verify that '${key.split('.')[0]}' is included in the 'select' query parameter.`);
    }
    filters.push(parseCondition(parseField(table, key, `filter (${key})`), value));
  }
  return filters;
}

/**
 * Parses and validates the query string of a request on `table` (already percent-decoded):
 * `skip` names parameters that mean something else (an RPC's arguments). Embedded resources
 * take their own `select`, filters, `order`, `limit` and `offset` from `<name>.`-prefixed keys.
 */
export function parseQuery(catalog: Catalog, table: TableInfo, params: URLSearchParams, skip?: ReadonlySet<string>, depth = 0): RequestQuery {
  const raw = params.get('select');
  const items: EmbedItem[] = [];
  const selectText = depth === 0 && !raw?.trim() ? '*' : raw ?? '';
  const select = parseSelect(catalog, table, selectText, items, depth ? `${table.name}_${depth}` : table.name);
  checkEmbedBounds(depth + (items.length ? 1 : 0), items.length);
  const own = new URLSearchParams();
  const childParams = items.map((item) => new URLSearchParams({ select: item.select }));
  const nullFilters = items.map(() => ({ inner: false, absent: false }));
  for (const [key, value] of params) {
    const index = items.findIndex((item) => key.startsWith(`${item.name}.`) || key === item.name);
    if (index < 0 || skip?.has(key)) {
      own.append(key, value);
      continue;
    }
    if (key === items[index]!.name) {
      if (value === 'not.is.null') nullFilters[index]!.inner = true;
      else if (value === 'is.null') nullFilters[index]!.absent = true;
      else throw parseError(`"failed to parse filter (${value})"`, `An embedded resource can only be filtered with is.null or not.is.null`);
      continue;
    }
    childParams[index]!.append(key.slice(items[index]!.name.length + 1), value);
  }
  const embeds = items.map((item, i): EmbedQuery => {
    const { table: child, relationship } = resolveEmbed(catalog, table, item.target, item.hint);
    return {
      name: item.name,
      table: child,
      relationship,
      inner: item.inner || nullFilters[i]!.inner,
      absent: nullFilters[i]!.absent,
      shown: item.select.trim() !== '',
      spread: item.spread,
      query: parseQuery(catalog, child, childParams[i]!, undefined, depth + 1),
    };
  });
  const order = own.get('order');
  const columns = own.get('columns');
  const onConflict = own.get('on_conflict');
  return {
    select,
    selectItems: selectText.trim() ? splitTopLevel(selectText).length : 0,
    embeds,
    filters: parseFilters(table, own, skip),
    order: order ? parseOrder(table, order) : [],
    limit: parseCount('limit', own.get('limit')),
    offset: parseCount('offset', own.get('offset')) ?? 0,
    columns: columns ? parseColumnList(table, columns) : undefined,
    onConflict: onConflict ? splitList(onConflict).map((c) => checkColumn(table, c)) : undefined,
  };
}
