/**
 * JWT claims of a caller. `role` picks the Postgres role (anon, authenticated or service_role);
 * the whole object is exposed to SQL as `request.jwt.claims`, read by auth.uid() and auth.jwt().
 */
export interface Claims {
  role: string;
  exp: number;
  iat?: number;
  sub?: string;
  session_id?: string;
  [claim: string]: unknown;
}

/** A field of a query result: its name and the Postgres type oid. */
export interface Field {
  name: string;
  dataTypeID: number;
}

/** Rows and metadata of one statement. */
export interface QueryResult<Row = Record<string, unknown>> {
  rows: Row[];
  fields: Field[];
  affectedRows?: number;
}

/** Runs statements on one open connection (a transaction or the whole database). */
export interface Queryable {
  /** One parameterised statement. Parameters are always passed separately from the SQL text. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<Row>>;
  /** Several statements without parameters (schema scripts). */
  exec(sql: string): Promise<void>;
}

/**
 * The embedded database. PGlite has one connection, so every call here is serialised: a
 * call waits until the previous one (or the previous transaction) is over. Inside a
 * `withClaims` or `transaction` callback use the `tx` it receives, never the database itself,
 * which would wait for the transaction that is waiting for it.
 */
export interface Database extends Queryable {
  /**
   * Runs `fn` in one transaction under the caller's role and claims
   * (SET LOCAL ROLE and set_config('request.jwt.claims', …, true)): both end with the
   * transaction, so nothing leaks into the next caller. Rolls back if `fn` throws.
   */
  withClaims<T>(claims: Claims, fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs `fn` in one transaction as the database owner. Rolls back if `fn` throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Calls `onPayload` for each NOTIFY on `channel`; resolves to a function that stops listening. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** Waits for the running work, then closes the database. */
  close(): Promise<void>;
}
