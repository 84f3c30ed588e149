/**
 * The game's REST requests as a load bot sends them: the URL, headers and body postgrest-js would
 * send for the same `net/` call (query parameters appended in the call's order and serialised by
 * `URL`, as postgrest-js does) plus the headers Node's `fetch` adds, so the server parses, plans
 * and answers the same requests. They go out through node:http with kept-alive connections, not
 * `fetch`: for thousands of bots in one process, fetch's streams, signals and connection pool
 * cost several times the request itself. `test/unit/load/bot-wire.test.ts` checks the URLs and
 * headers against net/'s own calls.
 */
import { Agent, request } from 'node:http';
import { CLIENT_INFO } from './wire.js';
import type { LoadFigures } from './figures.js';

/** Query parameters in order, as postgrest-js appends them. */
export type Query = ReadonlyArray<readonly [string, string]>;

/** A request's method, body and the headers that differ by call. */
export interface RestCall {
  method?: 'GET' | 'POST' | 'DELETE';
  /** A JSON body (POST). */
  body?: string;
  prefer?: string;
  accept?: string;
}

/** Where the REST requests go and who signs them. */
export interface RestTarget {
  url: string;
  anonKey: string;
  figures: LoadFigures;
  /** The loopback source address the requests come from (see loopbackAddress in fleet.ts); the system's choice when absent. */
  localAddress?: string;
}

/** The URL postgrest-js builds for `table` with `query`. */
export function restUrl(base: string, table: string, query: Query): string {
  const url = new URL(`${base}/rest/v1/${table}`);
  for (const [name, value] of query) url.searchParams.append(name, value);
  return url.href;
}

/** The headers supabase-js sends with a request of `call` signed with `token`. */
export function restHeaders(anonKey: string, token: string, call: RestCall): Record<string, string> {
  const method = call.method ?? 'GET';
  const headers: Record<string, string> = {};
  if (call.accept) headers.accept = call.accept;
  if (method === 'GET') headers['accept-profile'] = 'public';
  headers.apikey = anonKey;
  headers.authorization = `Bearer ${token}`;
  if (method !== 'GET') {
    headers['content-profile'] = 'public';
    headers['content-type'] = 'application/json';
  }
  if (call.prefer) headers.prefer = call.prefer;
  headers['x-client-info'] = CLIENT_INFO;
  return headers;
}

/** A finished request: its status and body text (empty on a network failure, status 0). */
export interface RestAnswer {
  status: number;
  text: string;
}

/**
 * The headers Node's `fetch` adds to every request: a bot sends them too, so the server reads
 * the requests a player's client sends, byte for byte.
 */
const FETCH_HEADERS = { accept: '*/*', 'accept-language': '*', 'sec-fetch-mode': 'cors', 'user-agent': 'node', 'accept-encoding': 'gzip, deflate' };

/**
 * Connections kept open between requests, as a browser keeps them: at most 6 at once per source
 * address (a browser's HTTP/1.1 limit per site; each bot has an address of its own) and 2,048
 * for the whole process (more requests wait for one), so a burst of thousands of bots never
 * opens tens of thousands of connections at once.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 6, maxFreeSockets: 2, maxTotalSockets: 2048 });

/**
 * Milliseconds a request may go without a byte of its answer before it fails as `ETIMEDOUT`: a
 * server past its limit then shows as failed requests, and a load run never waits forever on one.
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * One request over node:http from `localAddress` (when given): status and body, or the error
 * (`ETIMEDOUT` after `timeoutMs` of silence); `reused` says whether the socket served a request
 * before. The agent keeps connections apart by source address, so each bot's requests come from
 * its own.
 */
export function send(
  url: string, method: string, headers: Record<string, string>, body: string | undefined, localAddress?: string, timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<RestAnswer & { reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), reused: req.reusedSocket }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', (error: Error & { reused?: boolean }) => reject(Object.assign(error, { reused: req.reusedSocket })));
    req.end(body);
  });
}

/**
 * Sends one request; counts the answer's bytes and, for a status of 400 or more, a refusal
 * `rest <status> <table> <code> <message>` (a network failure: `rest failed <table> <error code>`). A
 * kept-alive connection that the server closed just as it was reused is tried once more on a new
 * one, as Node's documentation advises: that race is the client's, not the server's.
 */
export async function restRequest(target: RestTarget, token: string, table: string, query: Query, call: RestCall = {}): Promise<RestAnswer> {
  const { figures } = target;
  const method = call.method ?? 'GET';
  const url = restUrl(target.url, table, query);
  const headers = { ...restHeaders(target.anonKey, token, call), ...FETCH_HEADERS };
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await send(url, method, headers, call.body, target.localAddress);
      if (figures.recording) figures.bytes += Buffer.byteLength(answer.text);
      if (answer.status >= 400) figures.refuse(`rest ${answer.status} ${table} ${refusalOf(answer.text)}`);
      return answer;
    } catch (error) {
      const { code, reused } = error as { code?: string; reused?: boolean };
      if (attempt === 1 && reused && code === 'ECONNRESET') continue;
      figures.refuse(`rest failed ${table} ${code ?? (error as Error).message}`);
      return { status: 0, text: '' };
    }
  }
}

/** The `code` and `message` of a PostgREST error body, numbers in the message as `N` (so refusals of a kind count together), or `-`. */
function refusalOf(text: string): string {
  try {
    const { code, message } = JSON.parse(text) as { code?: unknown; message?: unknown };
    return `${String(code ?? '-')} ${String(message ?? '').replace(/-?\d+/g, 'N')}`.trim();
  } catch {
    return '-';
  }
}
