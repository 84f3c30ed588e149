/**
 * The part of Bun's `SQL` client that realtime-check uses, over `pg`, so the check runs on
 * Node: `new SQL(url, {tls})`, tagged-template queries whose values become bind parameters
 * (byte arrays as bytea), results as row arrays with a `count`, and `close()`.
 */
import pg from 'pg';

/** Rows of a query, with the number of rows it affected or returned. */
type Rows = Record<string, unknown>[] & { count: number };

/** A Bun-like SQL client: call it as a template tag. */
export interface SqlClient {
  (strings: TemplateStringsArray, ...values: unknown[]): Promise<Rows>;
  close(): Promise<void>;
}

function toParameter(value: unknown): unknown {
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value) : value;
}

/** Bun's `SQL` constructor, for the PostgreSQL at `url` (`?host=<dir>` names a Unix socket directory). */
export const SQL = function SQL(url: string, options: { tls?: unknown } = {}): SqlClient {
  const pool = new pg.Pool({ connectionString: url, ssl: options.tls ? { rejectUnauthorized: false } : undefined, max: 4 });
  const query = async (strings: TemplateStringsArray, ...values: unknown[]): Promise<Rows> => {
    const text = strings.reduce((sql, part, i) => `${sql}$${i}${part}`);
    const result = await pool.query(text, values.map(toParameter));
    return Object.assign([...result.rows], { count: result.rowCount ?? result.rows.length });
  };
  return Object.assign(query, { close: () => pool.end() });
} as unknown as new (url: string, options?: { tls?: unknown }) => SqlClient;
