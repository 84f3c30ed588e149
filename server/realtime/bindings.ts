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
}

/** Looks up published tables by schema and name. */
export interface TableLookup {
  /** Tables of `schema` in supabase_realtime; all of them when `table` is undefined or '*'. */
  find(schema: string, table: string | undefined): TableInfo[];
}

const EVENTS = new Set(['INSERT', 'UPDATE', 'DELETE', '*']);

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
      return { echo, event: '*', tables: [], filter: null };
    }
    if (!filter) return { echo, event: upper as RequestedBinding['event'], tables, filter: null };
    try {
      if (tables.length !== 1) throw new Error('Error parsing `filter` params: a filter needs one table');
      const conditions = parseFilter(filter, tables[0].types);
      return { echo, event: upper as RequestedBinding['event'], tables, filter: conditions.length > 0 ? conditions : null };
    } catch (error) {
      problems.push((error as Error).message);
      return { echo, event: '*', tables: [], filter: null };
    }
  });
  return { bindings, problems };
}
