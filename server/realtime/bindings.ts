import type { TableInfo } from './catalog.js';
import type { Filter } from './filter.js';
import { parseFilter } from './filter.js';

/** Thrown for a join payload whose shape is wrong; the join is refused with its message. */
export class JoinError extends Error {}

/** A requested postgres_changes binding: what to echo, and what it resolved to. */
export interface RequestedBinding {
  /** The binding exactly as the client sent it, plus its id: the join reply echoes this. */
  echo: Record<string, unknown> & { id: number };
  event: 'INSERT' | 'UPDATE' | 'DELETE' | '*';
  tables: TableInfo[];
  filter: Filter | null;
  /** The columns asked for with `select` (the primary key always comes too), or null for all. */
  select: Selection | null;
}

/** A binding's `select`: its columns, and a key equal for bindings that asked for the same ones. */
export interface Selection {
  columns: ReadonlySet<string>;
  /** The column names sorted and joined: bindings with the same key share their frames. */
  key: string;
}

/** Looks up published tables by schema and name. */
export interface TableLookup {
  /** Tables of `schema` in supabase_realtime; all of them when `table` is undefined or '*'. */
  find(schema: string, table: string | undefined): TableInfo[];
}

const EVENTS = new Set(['INSERT', 'UPDATE', 'DELETE', '*']);

/** Hosted's message for a `select` that is not a list of column names. */
const SELECT_NOT_A_LIST = 'Error parsing `select` params: expected a list of column name strings, e.g. select: ["col1", "col2"]';
/** Hosted's message for `select` on a subscription to every table of a schema. */
const SELECT_ON_WILDCARD = 'Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name.';

/**
 * Reads a binding's `select`: a list of column names of `table` (other items are ignored, as on
 * hosted), or null when absent or empty. Throws with hosted's message otherwise.
 */
function readSelect(select: unknown, schema: string, table: unknown, tables: TableInfo[]): Selection | null {
  if (select === undefined || select === null) return null;
  if (!Array.isArray(select)) throw new Error(SELECT_NOT_A_LIST);
  const names = select.filter((item): item is string => typeof item === 'string');
  if (names.length === 0) return null;
  if (schema === '*' || table === undefined || table === '*') throw new Error(SELECT_ON_WILDCARD);
  for (const name of names) if (!tables[0]!.types.has(name)) throw new Error(`invalid column for select ${name}`);
  const columns = new Set(names);
  return { columns, key: [...columns].sort().join(',') };
}

/** A stable 27-bit id for a binding's parameters (FNV-1a over its canonical JSON). */
function bindingId(params: Record<string, unknown>): number {
  const text = JSON.stringify(Object.keys(params).sort().map((key) => [key, params[key]]));
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0) & 0x7ffffff;
}

/**
 * Reads `config.postgres_changes` of a join payload. Shape errors throw {@link JoinError};
 * bindings that name no published table or carry a bad filter are kept for the echo and
 * reported in `problems`, as hosted Realtime reports them after the join.
 */
export function readBindings(payload: unknown, lookup: TableLookup): { bindings: RequestedBinding[]; problems: string[] } {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new JoinError('join payload must be an object');
  const config = (payload as { config?: unknown }).config ?? {};
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new JoinError('config must be an object');
  const list = (config as { postgres_changes?: unknown }).postgres_changes ?? [];
  if (!Array.isArray(list)) throw new JoinError('config.postgres_changes must be an array');
  const used = new Set<number>();
  const problems: string[] = [];
  const bindings = list.map((entry: unknown): RequestedBinding => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new JoinError('each postgres_changes entry must be an object');
    const params = entry as Record<string, unknown>;
    const { event, schema, table, filter } = params;
    if (typeof event !== 'string' || typeof schema !== 'string') throw new JoinError('postgres_changes entries need string event and schema');
    if (table !== undefined && typeof table !== 'string') throw new JoinError('postgres_changes table must be a string');
    if (filter !== undefined && filter !== null && typeof filter !== 'string') throw new JoinError('postgres_changes filter must be a string');
    let id = bindingId(params);
    while (used.has(id)) id = (id + 1) & 0x7ffffff;
    used.add(id);
    const echo = { ...params, id };
    const upper = event.toUpperCase();
    const tables = lookup.find(schema, table);
    if (!EVENTS.has(upper) || tables.length === 0) {
      problems.push(`Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [event: ${event}, schema: ${schema}, table: ${table ?? '*'}, filters: ${filter ?? '[]'}]`);
      return { echo, event: '*', tables: [], filter: null, select: null };
    }
    try {
      const select = readSelect(params.select, schema, table, tables);
      if (!filter) return { echo, event: upper as RequestedBinding['event'], tables, filter: null, select };
      if (tables.length !== 1) throw new Error('Error parsing `filter` params: a filter needs one table');
      const conditions = parseFilter(filter, tables[0]!);
      return { echo, event: upper as RequestedBinding['event'], tables, filter: conditions.length > 0 ? conditions : null, select };
    } catch (error) {
      problems.push((error as Error).message);
      return { echo, event: '*', tables: [], filter: null, select: null };
    }
  });
  return { bindings, problems };
}
