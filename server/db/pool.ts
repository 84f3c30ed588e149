import pg from 'pg';
import { statementTimeouts } from '../metrics.js';
import type { Claims, Database, Queryable, QueryResult } from './types.js';

/** The request roles a JWT may name. */
export const REQUEST_ROLES = ['anon', 'authenticated', 'service_role'] as const;

/**
 * The budget of the server's own statements (sign-in, Realtime's change reads and RLS checks):
 * they run on every tick or sign-in, so one that takes longer is a fault, not a load to wait for.
 */
export const INTERNAL_STATEMENT_TIMEOUT = '1s';

/** Default number of pooled connections (`DB_POOL`). */
export const DEFAULT_POOL_SIZE = 16;

const LISTEN_RETRY_MS = 1000;

/** Counts a statement PostgreSQL cancelled for its `statement_timeout` (SQLSTATE 57014). */
function countTimeout(error: unknown): void {
  if ((error as { code?: unknown }).code === '57014') statementTimeouts.inc();
}

function isRequestRole(role: string): role is (typeof REQUEST_ROLES)[number] {
  return (REQUEST_ROLES as readonly string[]).includes(role);
}

function resultOf<Row>(result: pg.QueryResult): QueryResult<Row> {
  return { rows: result.rows as Row[], fields: result.fields, affectedRows: result.rowCount ?? undefined };
}

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

/**
 * Keeps one connection LISTENing on `channel` for as long as the database is open, reconnecting
 * after a dropped connection. After a reconnect `onPayload('')` runs once, since notifications
 * sent while it was away are lost.
 */
function listenForever(config: pg.PoolConfig, channel: string, onPayload: (payload: string) => void, onError: (error: Error) => void) {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const connect = async (first: boolean): Promise<void> => {
    const next = new pg.Client(config);
    next.on('notification', (message) => onPayload(message.payload ?? ''));
    next.on('error', (error) => {
      onError(error);
      if (client === next && !stopped) {
        client = null;
        void next.end().catch(() => undefined);
        retry = setTimeout(() => void connect(false).catch(onError), LISTEN_RETRY_MS);
      }
    });
    await next.connect();
    await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    if (stopped) {
      await next.end();
      return;
    }
    client = next;
    if (!first) onPayload('');
  };
  return {
    ready: connect(true),
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const last = client;
      client = null;
      await last?.end();
    },
  };
}

/**
 * Opens a pool of `size` connections to PostgreSQL and returns the {@link Database} over it.
 * Connections start with the internal statement budget; a request under claims gets its role's.
 */
export function openPool(config: pg.PoolConfig, size: number, onError: (error: Error) => void): Database {
  const settings = { ...config, options: `-c statement_timeout=${INTERNAL_STATEMENT_TIMEOUT}` };
  const pool = new pg.Pool({ ...settings, max: size, idleTimeoutMillis: 60_000 });
  pool.on('error', onError);
  // Read at the first request, after bootstrap and migrations may have set them.
  let timeouts: Promise<Map<string, string>> | null = null;
  const listeners = new Set<{ stop(): Promise<void> }>();
  let closed: Promise<void> | null = null;

  /**
   * One statement text that opens a transaction and sets role, claims and the role's time budget,
   * each local to the transaction (set_config(…, true) is SET LOCAL), so nothing leaks into the
   * next request on the connection.
   */
  const beginWithClaims = async (claims: Claims): Promise<string> => {
    if (!isRequestRole(claims.role)) throw new Error(`unknown role ${claims.role}`);
    if (!timeouts) {
      timeouts = roleTimeouts(pool);
      timeouts.catch(() => (timeouts = null));
    }
    const timeout = (await timeouts).get(claims.role) ?? INTERNAL_STATEMENT_TIMEOUT;
    return `begin; select set_config('role', ${pg.escapeLiteral(claims.role)}, true), `
      + `set_config('request.jwt.claims', ${pg.escapeLiteral(JSON.stringify(claims))}, true), `
      + `set_config('statement_timeout', ${pg.escapeLiteral(timeout)}, true)`;
  };

  /**
   * Runs `work` on a pooled connection. If it fails, an open transaction is rolled back (a
   * failed statement leaves it open and aborted); a connection that cannot even roll back is
   * dropped from the pool instead of reused.
   */
  const onConnection = async <T,>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let broken = false;
    try {
      return await work(client);
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
  };

  const transaction = <T,>(begin: string, fn: (tx: Queryable) => Promise<T>): Promise<T> =>
    onConnection(async (client) => {
      await client.query(begin);
      const result = await fn(wrap(client));
      await client.query('commit');
      return result;
    });

  /**
   * `sql` under claims in one round trip: the transaction is opened, `sql` (statements without
   * parameters) run and the transaction ended with `end`, all in one script. Resolves to the
   * result of the last statement of `sql`.
   */
  const oneTrip = async <Row,>(claims: Claims, sql: string, end: 'commit' | 'rollback'): Promise<QueryResult<Row>> => {
    const script = `${await beginWithClaims(claims)}; ${sql}; ${end}`;
    return onConnection(async (client) => {
      const results = (await client.query(script)) as unknown as pg.QueryResult[];
      return resultOf<Row>(results[results.length - 2]!);
    });
  };

  const poolQuery = async (sql: string, params?: unknown[]) => {
    try {
      return await pool.query(sql, params);
    } catch (error) {
      countTimeout(error);
      throw error;
    }
  };

  return {
    query: async <Row,>(sql: string, params?: unknown[]) => resultOf<Row>(await poolQuery(sql, params)),
    exec: async (sql) => {
      await poolQuery(sql);
    },
    poolStats: () => ({ active: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    transaction: (fn) => transaction('begin', fn),
    withClaims: async (claims: Claims, fn) => transaction(await beginWithClaims(claims), fn),
    checkWithClaims: <Row,>(claims: Claims, sql: string) => oneTrip<Row>(claims, sql, 'rollback'),
    runWithClaims: async <Row,>(claims: Claims, sql: string, decide?: (result: QueryResult<Row>) => void) => {
      if (!decide) return oneTrip<Row>(claims, sql, 'commit');
      const begin = await beginWithClaims(claims);
      return onConnection(async (client) => {
        const results = (await client.query(`${begin}; ${sql}`)) as unknown as pg.QueryResult[];
        const result = resultOf<Row>(results[results.length - 1]!);
        decide(result);
        await client.query('commit');
        return result;
      });
    },
    listen: async (channel, onPayload) => {
      const listener = listenForever(settings, channel, onPayload, onError);
      await listener.ready;
      listeners.add(listener);
      return async () => {
        listeners.delete(listener);
        await listener.stop();
      };
    },
    close: () => {
      closed ??= (async () => {
        await Promise.all([...listeners].map((listener) => listener.stop()));
        await pool.end();
      })();
      return closed;
    },
  };
}
