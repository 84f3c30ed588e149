import type { Access, TableInfo } from './catalog.js';
import type { Change } from './capture.js';

type Row = Record<string, unknown>;

/** Records larger than this are sent without their long values, flagged 413, as on hosted. */
const MAX_RECORD_BYTES = 1024 * 1024;
const MAX_VALUE_BYTES_WHEN_TOO_LARGE = 64;

/** A captured change with its rows parsed once for filters, keys and trimming. */
export interface ParsedChange {
  change: Change;
  table: TableInfo;
  record: Row | null;
  /** The old row as the replica identity carries it (full, or key columns only). */
  old: Row | null;
  tooLarge: boolean;
}

function pick(row: Row, keep: (name: string) => boolean): Row {
  const out: Row = {};
  for (const name in row) if (keep(name)) out[name] = row[name];
  return out;
}

/** Parses a change and reduces its old row to the table's replica identity. */
export function parseChange(change: Change, table: TableInfo): ParsedChange {
  const record = change.record === null ? null : (JSON.parse(change.record) as Row);
  let old = change.old === null ? null : (JSON.parse(change.old) as Row);
  if (old && table.identity !== 'f') {
    const keys = new Set(table.identity === 'n' ? [] : table.pk.map((col) => col.name));
    old = pick(old, (name) => keys.has(name));
  }
  const size = (change.record?.length ?? 0) + (change.old?.length ?? 0);
  return { change, table, record, old, tooLarge: size > MAX_RECORD_BYTES };
}

function rowJson(parsed: ParsedChange, row: Row, columns: Set<string> | null, raw: string | null, pkOnly: boolean): string {
  if (!columns && !parsed.tooLarge && !pkOnly && raw !== null) return raw;
  const pk = new Set(parsed.table.pk.map((col) => col.name));
  const kept = pick(row, (name) => {
    if (columns && !columns.has(name)) return false;
    if (pkOnly && !pk.has(name)) return false;
    return !parsed.tooLarge || JSON.stringify(row[name]).length <= MAX_VALUE_BYTES_WHEN_TOO_LARGE;
  });
  return JSON.stringify(kept);
}

/**
 * The `data` object of a postgres_changes frame, as JSON text, for a reader with `access`:
 * schema, table, commit_timestamp, type, columns, record and/or old_record, errors. DELETE
 * old rows of RLS tables are cut to the primary key, as hosted Realtime does; `withOld` false
 * (an update whose old row the reader could not have read) sends `old_record` empty.
 */
export function changeDataJson(parsed: ParsedChange, access: Access, withOld = true): string {
  const { change, table } = parsed;
  const head = `{"schema":${JSON.stringify(table.schema)},"table":${JSON.stringify(table.name)},"commit_timestamp":"${change.at}","type":"${change.kind}"`;
  if (access.mode === 'nokey') return `${head},"errors":["Error 400: Bad Request, no primary key"]}`;
  const columns = access.columns;
  const cols = JSON.stringify(columns ? table.columns.filter((col) => columns.has(col.name)) : table.columns);
  let body = `${head},"columns":${cols}`;
  if (parsed.record) body += `,"record":${rowJson(parsed, parsed.record, columns, change.record, false)}`;
  if (parsed.old && !withOld) body += ',"old_record":{}';
  else if (parsed.old) {
    const fullOld = table.identity === 'f' ? change.old : null;
    body += `,"old_record":${rowJson(parsed, parsed.old, columns, fullOld, change.kind === 'DELETE' && table.rls)}`;
  }
  const errors = parsed.tooLarge ? '["Error 413: Payload Too Large"]' : 'null';
  return `${body},"errors":${errors}}`;
}
