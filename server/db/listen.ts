import pg from 'pg';

/** How long a LISTEN connection waits before it connects again after losing its connection. */
const LISTEN_RETRY_MS = 1000;

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

/** The LISTEN connections of one database: each kept until its stop is called or {@link stopAll}. */
export function createListeners(config: pg.PoolConfig, onError: (error: Error) => void) {
  const listeners = new Set<{ stop(): Promise<void> }>();
  return {
    /** Calls `onPayload` for each NOTIFY on `channel`; resolves to a function that stops listening. */
    async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
      const listener = listenForever(config, channel, onPayload, onError);
      await listener.ready;
      listeners.add(listener);
      return async () => {
        listeners.delete(listener);
        await listener.stop();
      };
    },
    /** Stops every listener still listening. */
    async stopAll(): Promise<void> {
      await Promise.all([...listeners].map((listener) => listener.stop()));
    },
  };
}
