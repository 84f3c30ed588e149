import type { SessionLock } from './session-lock.js';

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

/**
 * One statement with `$n` placeholders and their values (`params[n - 1]`), each read as a query
 * parameter is (an untyped value, typed by its place). `prefix` is statements without
 * placeholders run first in the same transaction (a request's local settings), or nothing.
 */
export interface ParameterizedSql {
  text: string;
  params: readonly unknown[];
  prefix?: string;
}

/** Runs statements on one open connection (a transaction or the whole database). */
export interface Queryable {
  /** One parameterised statement. Parameters are always passed separately from the SQL text. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<Row>>;
  /** Several statements without parameters (schema scripts). */
  exec(sql: string): Promise<void>;
}

/**
 * The database: a pool of PostgreSQL connections. `query` and `exec` run on any free
 * connection; a `withClaims` or `transaction` callback holds one connection for its
 * transaction and must use the `tx` it receives for every statement of it.
 */
export interface Database extends Queryable {
  /**
   * Runs `fn` in one transaction under the caller's role, claims and that role's
   * statement_timeout (SET LOCAL ROLE, set_config('request.jwt.claims', …, true)): all end
   * with the transaction, so nothing leaks into the next caller. Rolls back if `fn` throws.
   */
  withClaims<T>(claims: Claims, fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `sql` (statements without parameters: values are inlined as literals) in one round
   * trip, in a transaction under the caller's role, claims and budget as {@link withClaims}
   * opens it, then rolls everything back. Resolves to the result of each statement of `sql`, in
   * order; rejects with the first statement's error, if any (the rest are not run). For checks
   * that only ask what the database would say, such as the policies of realtime.messages.
   */
  checkWithClaims<Row = Record<string, unknown>>(claims: Claims, sql: string): Promise<QueryResult<Row>[]>;
  /**
   * Runs `statement` in a transaction under the caller's role, claims and budget as
   * {@link withClaims} opens it, and resolves to its result. A statement of a shape the
   * connection has run before runs prepared (server/db/prepared.ts). Without `decide`, the
   * transaction is opened, run and committed in one round trip. With it, `decide` sees the result first: if it throws, everything is rolled
   * back and its error is the answer; otherwise a second round trip commits. `since`
   * (performance.now()) is when the request was taken, if earlier than this call: how long it
   * waited since, for a turn and a connection, goes to the database with the claims
   * (`tessera.waited_ms`, by which the rules date a position).
   */
  runWithClaims<Row = Record<string, unknown>>(claims: Claims, statement: ParameterizedSql, decide?: (result: QueryResult<Row>) => void, since?: number): Promise<QueryResult<Row>>;
  /** Runs `fn` in one transaction as the database owner. Rolls back if `fn` throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** The pool's connections now: in use, idle, and requests waiting for one. */
  poolStats(): { active: number; idle: number; waiting: number };
  /**
   * Takes the session advisory lock `name` on a connection of its own if no other session holds
   * it (server/db/session-lock.ts); null when one does. The lock frees itself if that connection drops.
   */
  tryLock(name: string): Promise<SessionLock | null>;
  /** Calls `onPayload` for each NOTIFY on `channel`; resolves to a function that stops listening. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** Closes the listeners and the pool once the running work is over. */
  close(): Promise<void>;
}
