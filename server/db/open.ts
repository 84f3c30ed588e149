import { PGlite } from '@electric-sql/pglite';
import type { Transaction } from '@electric-sql/pglite';
import type { Claims, Database, Queryable, QueryResult } from './types.js';
import { createSerialQueue } from './serial.js';

/** The request roles a JWT may name. */
export const REQUEST_ROLES = ['anon', 'authenticated', 'service_role'] as const;

function isRequestRole(role: string): role is (typeof REQUEST_ROLES)[number] {
  return (REQUEST_ROLES as readonly string[]).includes(role);
}

function wrap(tx: Transaction): Queryable {
  return {
    query: <Row,>(sql: string, params?: unknown[]) => tx.query<Row>(sql, params) as Promise<QueryResult<Row>>,
    exec: async (sql) => {
      await tx.exec(sql);
    },
  };
}

/**
 * Opens (or creates) the PGlite database in `dataDir` and returns the serialised
 * {@link Database} over it. The caller must hold the data directory lock.
 */
export async function openDatabase(dataDir: string): Promise<Database> {
  const pg = await PGlite.create({ dataDir });
  const queue = createSerialQueue();
  let closed = false;

  const transaction = <T,>(fn: (tx: Queryable) => Promise<T>) =>
    queue.run(() => pg.transaction((tx) => fn(wrap(tx))));

  return {
    query: <Row,>(sql: string, params?: unknown[]) =>
      queue.run(() => pg.query<Row>(sql, params) as Promise<QueryResult<Row>>),
    exec: (sql) =>
      queue.run(async () => {
        await pg.exec(sql);
      }),
    transaction,
    withClaims: (claims: Claims, fn) => {
      if (!isRequestRole(claims.role)) return Promise.reject(new Error(`unknown role ${claims.role}`));
      const role = claims.role;
      return transaction(async (tx) => {
        // One round trip sets both, each local to the transaction (set_config('role', …, true) is SET LOCAL ROLE).
        await tx.query(`select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`, [role, JSON.stringify(claims)]);
        return fn(tx);
      });
    },
    listen: async (channel, onPayload) => {
      const stop = await queue.run(() => pg.listen(channel, onPayload));
      return () => queue.run(() => stop());
    },
    close: () =>
      queue.run(async () => {
        if (closed) return;
        closed = true;
        await pg.close();
      }),
  };
}
