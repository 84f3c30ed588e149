import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientAddresses } from './http/client-address.js';
import { pathUnder } from './http/paths.js';
import { requestPath } from './http/request-path.js';
import { accessLog } from './log.js';
import { restDuration, signIns } from './metrics.js';
import type { RestContext } from './rest/handler.js';

/** Paths polled by monitors every second or so: logged at `debug` only. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The status class of a status code: `2xx` … `5xx`. */
function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/** What {@link recordRequest} needs besides the request: the REST catalogs (for the table label) and the client reader. */
export interface RequestRecording {
  rest: Pick<RestContext, 'catalogs'>;
  clients: ClientAddresses;
}

/**
 * Records a finished request: its line in the access log (with its id, the client address, and
 * the path as sent, even one refused for not being in normal form), the REST histogram (by
 * table, `other` for a name the catalogs do not hold) and the sign-in counter. `started` is the
 * `performance.now()` of its start.
 */
export function recordRequest(req: IncomingMessage, res: ServerResponse, reqId: string, started: number, recording: RequestRecording): void {
  const seconds = (performance.now() - started) / 1000;
  const path = requestPath(req.url);
  const status = res.statusCode;
  const line = { reqId, method: req.method, path, client: recording.clients.of(req), status, ms: Math.round(seconds * 1000) };
  if (QUIET_PATHS.has(path)) accessLog.debug(line, 'request');
  else accessLog.info(line, 'request');
  const restPath = pathUnder(path, '/rest/v1');
  if (restPath !== null) {
    const name = restPath.split('/')[1] ?? '';
    const known = name === 'rpc' || [...recording.rest.catalogs.values()].some((catalog) => catalog.tables.has(name));
    restDuration.observe({ method: req.method ?? 'GET', table: known ? name : 'other', status: statusClass(status) }, seconds);
  } else if (path === '/auth/v1/token' && req.method === 'POST' && ['web3', 'password'].includes(new URL(req.url!, 'http://x').searchParams.get('grant_type') ?? '')) {
    signIns.inc({ result: status === 200 ? 'success' : status === 429 ? 'rate_limited' : 'refused' });
  }
}
