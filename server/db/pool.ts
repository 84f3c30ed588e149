import pg from 'pg';
import { statementTimeouts } from '../metrics.js';
import { createListeners } from './listen.js';
import { inlined, preparedStatements } from './prepared.js';
import { createSessionLocks } from './session-lock.js';
import type { Claims, Database, ParameterizedSql, Queryable, QueryResult } from './types.js';

/** The request roles a JWT may name. */
export const REQUEST_ROLES = ['anon', 'authenticated', 'service_role'] as const;

/**
 * The budget of the server's own statements (sign-in, Realtime's change reads and RLS checks):
 * they run on every tick or sign-in, so one that takes longer is a fault, not a load to wait for.
 */
export const INTERNAL_STATEMENT_TIMEOUT = '1s';

/** Default number of pooled connections (`DB_POOL`). */
export const DEFAULT_POOL_SIZE = 16;
/**
 * Connections of their own for the rolled-back checks ({@link Database.checkWithClaims}: the
 * authorisation checks of private channels, at most MAX_AUTHORIZATIONS_IN_FLIGHT at once,
 * server/realtime/limits.ts), beside the pool: a join never waits for a connection behind a
 * crowd's REST requests, and those never wait behind joins.
 */
export const CHECK_CONNECTIONS = 4;

/** Counts a statement PostgreSQL cancelled for its `statement_timeout` (SQLSTATE 57014). */
function countTimeout(error: unknown): void {
  if ((error as { code?: unknown }).code === '57014') statementTimeouts.inc();
}

/** Whether `role` is one of {@link REQUEST_ROLES}. */
function isRequestRole(role: string): role is (typeof REQUEST_ROLES)[number] {
  return (REQUEST_ROLES as readonly string[]).includes(role);
}

/** A pg result as the {@link Database} interface gives it. */
function resultOf<Row>(result: pg.QueryResult): QueryResult<Row> {
  return { rows: result.rows as Row[], fields: result.fields, affectedRows: result.rowCount ?? undefined };
}

/** A connection seen as a {@link Queryable}. */
function wrap(client: pg.ClientBase): Queryable {
  return {
    query: async <Row,>(sql: string, params?: unknown[]) => resultOf<Row>(await client.query(sql, params)),
    exec: async (sql) => {
      await client.query(sql);
    },
  };
}

/**
 * Each request role's `statement_timeout`, read from the database as PostgREST reads the
 * impersonated role's settings (`alter role anon set statement_timeout = '3s'`), so the same
 * budgets hold on the embedded server and on a hosted project.
 */
async function roleTimeouts(pool: pg.Pool): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ role: string; value: string }>(
    `select r.rolname as role, split_part(c, '=', 2) as value
       from pg_db_role_setting s join pg_roles r on r.oid = s.setrole, unnest(s.setconfig) c
      where s.setdatabase in (0, (select oid from pg_database where datname = current_database()))
        and c like 'statement_timeout=%' and r.rolname = any($1)
      order by s.setdatabase`,
    [REQUEST_ROLES],
  );
  return new Map(rows.map((row) => [row.role, row.value]));
}

/** Statements in the text a {@link claimsBeginner} writes: `begin`, then one select of the settings. */
const BEGIN_STATEMENTS = 2;

/**
 * The statement text that opens a transaction, written once a connection is at hand: `waitedMs`
 * is how long the request has waited (see {@link onConnection}).
 */
type Begin = (waitedMs: number) => string;

/** The plain `begin` of the server's own transactions. */
const PLAIN_BEGIN: Begin = () => 'begin';

/**
 * A writer of the statement text that opens a transaction under claims and sets role, claims,
 * the role's time budget and `tessera.waited_ms` (how long the request waited for its turn and a
 * pooled connection: the rules date a position by when the server took its request,
 * `game_private.request_time()` in
 * supabase/migrations/20250803000000_positions_at_request_time.sql), each local to the
 * transaction (set_config(…, true) is SET LOCAL), so nothing leaks into the next request on the
 * connection. The budgets are read at the first request, after bootstrap and migrations may have
 * set them (again after a failed read).
 */
function claimsBeginner(pool: pg.Pool): (claims: Claims) => Promise<Begin> {
  let timeouts: Promise<Map<string, string>> | null = null;
  // A token's claims are one frozen object while its verification is cached (server/auth/keys.ts):
  // its settings are written once, not at every request (the claims' JSON, escaped, is most of them).
  const written = new WeakMap<Claims, string>();
  const write = async (claims: Claims): Promise<string> => {
    if (!timeouts) {
      timeouts = roleTimeouts(pool);
      timeouts.catch(() => (timeouts = null));
    }
    const timeout = (await timeouts).get(claims.role) ?? INTERNAL_STATEMENT_TIMEOUT;
    const settings = `begin; select set_config('role', ${pg.escapeLiteral(claims.role)}, true), `
      + `set_config('request.jwt.claims', ${pg.escapeLiteral(JSON.stringify(claims))}, true), `
      + `set_config('statement_timeout', ${pg.escapeLiteral(timeout)}, true)`;
    if (Object.isFrozen(claims)) written.set(claims, settings);
    return settings;
  };
  return async (claims) => {
    if (!isRequestRole(claims.role)) throw new Error(`unknown role ${claims.role}`);
    const settings = written.get(claims) ?? (await write(claims));
    return (waitedMs) => `${settings}, set_config('tessera.waited_ms', '${Math.round(waitedMs)}', true)`;
  };
}

/**
 * Runs `work` on a pooled connection, telling it how many milliseconds passed since `since`
 * (performance.now(); by default now, so the wait for the connection). If it fails, an open
 * transaction is rolled back (a failed statement leaves it open and aborted); a connection that
 * cannot even roll back is dropped from the pool instead of reused.
 */
async function onConnection<T>(pool: pg.Pool, work: (client: pg.PoolClient, waitedMs: number) => Promise<T>, since = performance.now()): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await work(client, performance.now() - since);
  } catch (error) {
    countTimeout(error);
    try {
      await client.query('rollback');
    } catch {
      broken = true;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** Runs `fn` in a transaction opened by the statement text `begin` writes, and commits. */
function transaction<T>(pool: pg.Pool, begin: Begin, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return onConnection(pool, async (client, waited) => {
    await client.query(begin(waited));
    const result = await fn(wrap(client));
    await client.query('commit');
    return result;
  });
}

/**
 * The statement text a request runs on `client`: the statements without parameters that `sql`
 * gives it there (EXECUTE of a prepared statement, or the statement with its values inlined).
 */
type StatementOn = (client: pg.ClientBase) => Promise<string>;

/**
 * A statement in one round trip: the transaction is opened with `begin`, the statement run and
 * the transaction committed, all in one script. Resolves to the result of the statement's last.
 */
function oneTrip<Row>(pool: pg.Pool, begin: Begin, sql: StatementOn, since?: number): Promise<QueryResult<Row>> {
  return onConnection(pool, async (client, waited) => {
    const results = (await client.query(`${begin(waited)}; ${await sql(client)}; commit`)) as unknown as pg.QueryResult[];
    return resultOf<Row>(results[results.length - 2]!);
  }, since);
}

/**
 * `sql` in one round trip in a transaction opened with `begin` (a {@link claimsBeginner}'s text),
 * then rolled back, all in one script. Resolves to the result of each statement of `sql`.
 */
function checkTrip<Row>(pool: pg.Pool, begin: Begin, sql: string): Promise<QueryResult<Row>[]> {
  return onConnection(pool, async (client, waited) => {
    const results = (await client.query(`${begin(waited)}; ${sql}; rollback`)) as unknown as pg.QueryResult[];
    return results.slice(BEGIN_STATEMENTS, -1).map((result) => resultOf<Row>(result));
  });
}

/** Opens the transaction with `begin` and runs the statement in one script, lets `decide` see the result (it throws to roll back), then commits. */
function decidedTrip<Row>(pool: pg.Pool, begin: Begin, sql: StatementOn, decide: (result: QueryResult<Row>) => void, since?: number): Promise<QueryResult<Row>> {
  return onConnection(pool, async (client, waited) => {
    const results = (await client.query(`${begin(waited)}; ${await sql(client)}`)) as unknown as pg.QueryResult[];
    const result = resultOf<Row>(results[results.length - 1]!);
    decide(result);
    await client.query('commit');
    return result;
  }, since);
}

/** One statement on any pooled connection, its timeout counted. */
async function poolQuery(pool: pg.Pool, sql: string, params?: unknown[]): Promise<pg.QueryResult> {
  try {
    return await pool.query(sql, params);
  } catch (error) {
    countTimeout(error);
    throw error;
  }
}

/**
 * The lock that every schema change of every node on the database takes for its transaction
 * (the scripts of {@link Database.exec}, each migration), so two nodes never install triggers,
 * grants or functions on the same objects at once (PostgreSQL refuses that with `tuple
 * concurrently updated`, or a duplicate key in its catalogue).
 */
export const SCHEMA_LOCK = "pg_advisory_xact_lock(hashtext('tessera_scripts'))";

/**
 * The first statements of every script {@link Database.exec} runs: no time budget (a schema
 * change, like a migration, waits for the nodes ahead of it, however long they take on a busy
 * machine), then {@link SCHEMA_LOCK}. A script of several statements is one transaction, so the
 * setting and the lock last it all and end with it.
 */
export const SERIALIZE_SCRIPT = `select set_config('statement_timeout', '0', true); select ${SCHEMA_LOCK};`;

/**
 * Opens a pool of `size` connections to PostgreSQL and returns the {@link Database} over it.
 * Connections start with the internal statement budget; a request under claims gets its role's.
 */

export function openPool(config: pg.PoolConfig, size: number, onError: (error: Error) => void): Database {
  const settings = { ...config, options: `-c statement_timeout=${INTERNAL_STATEMENT_TIMEOUT}` };
  const pool = new pg.Pool({ ...settings, max: size, idleTimeoutMillis: 60_000 });
  pool.on('error', onError);
  const checks = new pg.Pool({ ...settings, max: CHECK_CONNECTIONS, idleTimeoutMillis: 60_000 });
  checks.on('error', onError);
  const beginWithClaims = claimsBeginner(pool);
  const prepared = preparedStatements();
  const listeners = createListeners(settings, onError);
  const locks = createSessionLocks(settings, onError);
  let closed: Promise<void> | null = null;
  return {
    query: async <Row,>(sql: string, params?: unknown[]) => resultOf<Row>(await poolQuery(pool, sql, params)),
    exec: async (sql) => {
      await poolQuery(pool, `${SERIALIZE_SCRIPT} ${sql}`);
    },
    poolStats: () => ({ active: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    transaction: (fn) => transaction(pool, PLAIN_BEGIN, fn),
    withClaims: async (claims: Claims, fn) => transaction(pool, await beginWithClaims(claims), fn),
    checkWithClaims: async <Row,>(claims: Claims, sql: string) => checkTrip<Row>(checks, await beginWithClaims(claims), sql),
    runWithClaims: async <Row,>(claims: Claims, statement: ParameterizedSql, decide?: (result: QueryResult<Row>) => void, since?: number) => {
      const begin = await beginWithClaims(claims);
      const run = (sql: StatementOn) => (decide ? decidedTrip(pool, begin, sql, decide, since) : oneTrip<Row>(pool, begin, sql, since));
      try {
        return await run((client) => prepared.sql(client, statement));
      } catch (error) {
        // Refused before it ran, for being prepared: nothing was done, so it runs again inlined.
        if (!prepared.forgets(error)) throw error;
        return await run(async () => inlined(statement));
      }
    },
    tryLock: (name) => locks.tryLock(name),
    listen: (channel, onPayload) => listeners.listen(channel, onPayload),
    close: () => {
      closed ??= (async () => {
        await listeners.stopAll();
        await locks.close();
        await Promise.all([pool.end(), checks.end()]);
      })();
      return closed;
    },
  };
}
