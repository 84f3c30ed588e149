import { isJsonObject } from '../http/json.js';
import { ident, qualified, type Catalog, type FunctionInfo, type TableInfo } from './catalog.js';
import { checkQueryBounds } from './bounds.js';
import { RestError } from './errors.js';
import type { Preferences } from './prefer.js';
import { parseQuery } from './query.js';
import { selectStatement, type Statement } from './sql.js';

/** Types a single unnamed parameter may have to receive the whole body (PostgREST's rule). */
const WHOLE_BODY_TYPES = new Set(['json', 'jsonb', 'text', 'xml', 'bytea']);

const takesWholeBody = (fn: FunctionInfo) => fn.args.length === 1 && fn.args[0]!.name === '' && WHOLE_BODY_TYPES.has(fn.args[0]!.type);

/** Whether PostgREST can call `fn` at all: named arguments, or one unnamed json/jsonb/text one. */
const callable = (fn: FunctionInfo) => fn.args.every((arg) => arg.name !== '') || takesWholeBody(fn);

const signature = (fn: FunctionInfo) => `${fn.schema}.${fn.name}(${fn.args.map((arg) => `${arg.name} => ${arg.type}`).join(', ')})`;

/**
 * The overload of `name` that the argument names `keys` call, as PostgREST resolves it:
 * every key is an argument and every argument without a default is given; a function with one
 * unnamed json/jsonb/text argument takes a whole POST body. PGRST202 (404) when none matches,
 * PGRST203 (300) when several do.
 */
export function resolveFunction(catalog: Catalog, name: string, keys: string[], body: boolean): { fn: FunctionInfo; wholeBody: boolean } {
  const overloads = (catalog.functions.get(name) ?? []).filter(callable);
  const named = overloads.filter((fn) => !takesWholeBody(fn)
    && keys.every((key) => fn.args.some((arg) => arg.name === key))
    && fn.args.every((arg) => arg.hasDefault || keys.includes(arg.name)));
  const whole = overloads.filter((fn) => takesWholeBody(fn) && (body ? keys.length > 0 || fn.args[0]!.hasDefault : fn.args[0]!.hasDefault && !keys.length));
  // Without arguments, a function that takes none and one whose single unnamed argument has a default both match.
  const matches = named.length && keys.length ? named : [...named, ...whole];
  if (matches.length === 1) return { fn: matches[0]!, wholeBody: !named.includes(matches[0]!) };
  if (matches.length > 1) {
    const list = [...matches].sort((a, b) => a.args.length - b.args.length || signature(a).localeCompare(signature(b))).map(signature);
    throw new RestError(300, 'PGRST203', `Could not choose the best candidate function between: ${list.join(', ')}`, null,
      'Try renaming the parameters or the function itself in the database so function overloading can be resolved');
  }
  const described = keys.length ? `(${keys.join(', ')})` : ' without parameters';
  const searched = keys.length ? ` with parameter${keys.length > 1 ? 's' : ''} ${keys.join(', ')}` : ' without parameters';
  throw new RestError(404, 'PGRST202', `Could not find the function ${catalog.schema}.${name}${described} in the schema cache`,
    `Searched for the function ${catalog.schema}.${name}${searched} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`);
}

/** The table-like shape of a function's rows: its table or view, or its `returns table` columns. */
function resultTable(catalog: Catalog, fn: FunctionInfo): TableInfo | null {
  if (fn.returnsTable) return catalog.tables.get(fn.returnsTable)!;
  if (!fn.resultColumns.length) return null;
  return {
    schema: fn.schema, name: fn.name, columns: fn.resultColumns.map(([column]) => column), types: new Map(fn.resultColumns), view: true,
    primaryKey: [], uniques: [], largeText: new Map(), indexes: [], collations: new Map(),
  };
}

/** A planned function call: its statement and how its result is answered. */
export interface RpcPlan {
  statement: Statement;
  /** `scalar`: the body is one JSON value; `void`: 204; `rows`: a JSON array; `row`: one object. */
  shape: 'scalar' | 'void' | 'rows' | 'row';
  offset: number;
}

/**
 * Plans `/rpc/<name>`: arguments from the JSON body (POST; the whole body with
 * `Prefer: params=single-object` or for a single unnamed json parameter) or from the query
 * string (GET/HEAD, where the other parameters filter the result). Argument values reach SQL
 * only through one JSON parameter read by `json_populate_record`-style conversion.
 */
export function planRpc(catalog: Catalog, name: string, params: URLSearchParams, body: unknown, read: boolean, prefer: Preferences): RpcPlan {
  let args: Record<string, unknown>;
  let keys: string[];
  const overloads = catalog.functions.get(name) ?? [];
  if (read) {
    const argNames = new Set(overloads.flatMap((fn) => fn.args.map((arg) => arg.name)));
    args = {};
    for (const [key, value] of params) if (argNames.has(key) && key !== '') args[key] = value;
    keys = Object.keys(args);
  } else {
    args = isJsonObject(body) ? body : {};
    keys = prefer.singleObject || Array.isArray(body) ? [] : Object.keys(args);
  }
  let resolved: { fn: FunctionInfo; wholeBody: boolean };
  if (prefer.singleObject && !read) {
    const single = overloads.filter((fn) => fn.args.length === 1 && ['json', 'jsonb'].includes(fn.args[0]!.type));
    if (single.length !== 1) resolved = resolveFunction(catalog, name, Object.keys(args), true);
    else resolved = { fn: single[0]!, wholeBody: true };
  } else resolved = resolveFunction(catalog, name, keys, !read);
  const { fn, wholeBody } = resolved;
  const sqlParams: unknown[] = [];
  let call: string;
  let argsFrom = '';
  if (wholeBody) {
    sqlParams.push(typeof body === 'string' && fn.args[0]!.type === 'text' ? body : JSON.stringify(body ?? null));
    call = `${qualified(fn)}($1::${fn.args[0]!.type})`;
  } else {
    const given = fn.args.filter((arg) => arg.name in args);
    const values = Object.fromEntries(given.map((arg) => {
      const value = args[arg.name];
      const isJson = arg.type === 'json' || arg.type === 'jsonb';
      return [arg.name, read && isJson && typeof value === 'string' ? safeJson(value) : value];
    }));
    call = `${qualified(fn)}(${given.map((arg) => `${ident(arg.name)} := pgrst_args.${ident(arg.name)}`).join(', ')})`;
    if (given.length) {
      sqlParams.push(JSON.stringify(values));
      argsFrom = `json_to_record($1::json) as pgrst_args(${given.map((arg) => `${ident(arg.name)} ${arg.type}`).join(', ')})`;
    }
  }
  const from = (alias: string) => (argsFrom ? `${argsFrom} cross join lateral ${call} as ${alias}` : `${call} as ${alias}`);
  const table = resultTable(catalog, fn);
  if (table) {
    const query = parseQuery(catalog, table, params, new Set(keys));
    checkQueryBounds(table, query, true, false);
    const source = { sql: `(select pgrst_x.* from ${from('pgrst_x')}) as ${ident(table.name)}`, params: sqlParams };
    return { statement: selectStatement(table, query, prefer.countExact, source), shape: fn.returnsSet ? 'rows' : 'row', offset: query.offset };
  }
  const argsClause = argsFrom ? `from ${argsFrom}` : '';
  if (fn.returns === 'void') {
    return {
      statement: { sql: `select null::int as total, (select count(*)::int from (select ${call} as v ${argsClause}) _v) as page, 0 as inserted, null::text as body`, params: sqlParams },
      shape: 'void',
      offset: 0,
    };
  }
  const value = fn.returnsSet
    ? `(select coalesce(json_agg(pgrst_x), '[]')::text from ${from('pgrst_x')})`
    : `(select to_json(${call})::text ${argsClause})`;
  return {
    statement: { sql: `select ${prefer.countExact ? 1 : 'null::int'} as total, 1 as page, 0 as inserted, ${value} as body`, params: sqlParams },
    shape: fn.returnsSet ? 'rows' : 'scalar',
    offset: 0,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
