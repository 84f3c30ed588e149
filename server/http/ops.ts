import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { Bus } from '../cluster/index.js';
import type { Database } from '../db/index.js';
import type { ClientAddresses } from './client-address.js';
import { readinessQueries, registry } from '../metrics.js';
import { bearerToken, sendJson } from './respond.js';

/** Longest a readiness check waits for the database before answering 503. */
export const READY_TIMEOUT_MS = 2000;

/** A readiness answer this fresh is given again without asking the database: a flood of /readyz costs at most 4 queries a second. */
export const READY_REUSE_MS = 250;

/** What `/readyz` checks. */
export interface ReadinessDeps {
  db: Database;
  /** The migration versions the server applied at start: all must be recorded. */
  migrations: readonly string[];
  /** Whether Realtime serves (false once the server began to stop). */
  realtimeRunning(): boolean;
  /** The bus between the nodes: in a cluster, its Redis is checked too. */
  bus: Pick<Bus, 'clustered' | 'status'>;
}

/** `GET /healthz`: the process serves requests. Always 200 while it does. */
export function serveHealth(res: ServerResponse): void {
  sendJson(res, 200, { status: 'ok', uptime_seconds: Math.round(process.uptime()) }, { 'Cache-Control': 'no-store' });
}

/**
 * Makes the `GET /readyz` handler: 200 `{"status":"ready",…}` when the database answers within
 * {@link READY_TIMEOUT_MS}, every migration is recorded, Realtime runs and, in a cluster, the bus
 * is on Redis (check `redis`); otherwise 503 with the failing check named. One query per check; requests arriving while one runs share it, and
 * an answer younger than {@link READY_REUSE_MS} is reused.
 */
export function readinessHandler(deps: ReadinessDeps): (res: ServerResponse) => Promise<void> {
  let running: Promise<{ database: string; migrations: string }> | null = null;
  let last: { at: number; checks: { database: string; migrations: string } } | null = null;
  const check = async () => {
    readinessQueries.inc();
    const query = deps.db.query<{ applied: number }>(
      'select count(*)::int as applied from supabase_migrations.schema_migrations where version = any($1)',
      [deps.migrations],
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
    try {
      const { rows } = await Promise.race([query, timeout]);
      const applied = rows[0]!.applied;
      return { database: 'ok', migrations: applied === deps.migrations.length ? 'ok' : `${deps.migrations.length - applied} not applied` };
    } catch (error) {
      query.catch(() => undefined);
      return { database: `unreachable: ${(error as Error).message}`, migrations: 'unknown' };
    } finally {
      clearTimeout(timer);
    }
  };
  return async (res) => {
    if (!last || performance.now() - last.at >= READY_REUSE_MS) {
      running ??= check().then((checks) => {
        last = { at: performance.now(), checks };
        return checks;
      }).finally(() => (running = null));
      await running;
    }
    const { database, migrations } = last!.checks;
    const realtime = deps.realtimeRunning() ? 'ok' : 'stopped';
    const checks: Record<string, string> = { database, migrations, realtime };
    if (deps.bus.clustered) checks.redis = deps.bus.status();
    const ready = Object.values(checks).every((verdict) => verdict === 'ok');
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', checks }, { 'Cache-Control': 'no-store' });
  };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `GET /metrics` in Prometheus's text format. Answered to a request from this machine
 * ({@link ClientAddresses.isLocal}: a proxied request counts by its forwarded client, and only
 * through a trusted proxy), or to any caller with `Authorization: Bearer <metricsToken>`;
 * otherwise 401 (no or wrong token given, a `WWW-Authenticate` challenge) or 403 (from elsewhere
 * with no token configured).
 */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse, metricsToken: string | undefined, clients: ClientAddresses): Promise<void> {
  const token = bearerToken(req);
  const allowed = token !== undefined ? metricsToken !== undefined && sameSecret(token, metricsToken) : clients.isLocal(req);
  if (!allowed) {
    if (token !== undefined || metricsToken !== undefined) {
      sendJson(res, 401, { message: 'A valid metrics token is required' }, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
    } else {
      sendJson(res, 403, { message: 'Metrics are readable from this machine only (set METRICS_TOKEN to read them from elsewhere)' });
    }
    return;
  }
  const text = await registry.metrics();
  res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}
