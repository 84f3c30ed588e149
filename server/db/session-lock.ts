import pg from 'pg';

/** How often a held lock's connection is asked whether it is still there, so a silently dropped connection is noticed. */
export const LOCK_PING_MS = 1000;

/** A session advisory lock held on a connection of its own: it frees itself when that connection drops. */
export interface SessionLock {
  /** Settles when the connection holding the lock is lost (the lock is then free for others). */
  lost: Promise<void>;
  /** Frees the lock and closes its connection. */
  release(): Promise<void>;
}

/** Holds the lock taken on `client` until released or the connection drops (noticed at the latest LOCK_PING_MS later). */
function holding(client: pg.Client): SessionLock {
  let ping: ReturnType<typeof setInterval> | undefined;
  const lost = new Promise<void>((resolve) => {
    const gone = () => {
      clearInterval(ping);
      resolve();
    };
    client.once('end', gone);
    client.on('error', () => {
      gone();
      void client.end().catch(() => undefined);
    });
    // A ping that fails ends the connection, which settles `lost`.
    ping = setInterval(() => void client.query('select 1').catch(() => client.end().catch(() => undefined)), LOCK_PING_MS);
    ping.unref();
  });
  return {
    lost,
    async release() {
      clearInterval(ping);
      await client.end().catch(() => undefined);
    },
  };
}

/**
 * Session advisory locks on connections of their own (`pg_try_advisory_lock`), for a role one
 * node of a cluster holds at a time. A try that finds the lock taken keeps its connection for
 * the next try, so trying every second costs one statement, not one connection.
 */
export function createSessionLocks(config: pg.ClientConfig, onError: (error: Error) => void) {
  let idle: pg.Client | null = null;

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client(config);
    client.on('error', (error) => {
      onError(error);
      if (idle === client) idle = null;
    });
    await client.connect();
    return client;
  }

  return {
    /** Takes the lock named `name` if it is free; null when another session holds it. */
    async tryLock(name: string): Promise<SessionLock | null> {
      const client = idle ?? (await connect());
      idle = null;
      try {
        const { rows } = await client.query<{ held: boolean }>('select pg_try_advisory_lock(hashtext($1)) as held', [name]);
        if (rows[0]!.held) return holding(client);
        idle = client;
        return null;
      } catch (error) {
        void client.end().catch(() => undefined);
        throw error;
      }
    },
    /** Closes the connection kept between tries. */
    async close(): Promise<void> {
      const last = idle;
      idle = null;
      await last?.end().catch(() => undefined);
    },
  };
}
