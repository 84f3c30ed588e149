/**
 * The game's REST requests as a load bot sends them: plain `fetch` with the URL, headers and
 * body postgrest-js would send for the same `net/` call (query parameters appended in the call's
 * order and serialised by `URL`, as postgrest-js does), so the server parses, plans and answers
 * the same requests. `test/unit/load/bot-wire.test.ts` checks the URLs against net/'s own calls.
 */
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
 * Sends one request; counts the answer's bytes and, for a status of 400 or more, a refusal
 * `rest <status> <code> <table>` (a network failure: `rest failed <table> <error code>`).
 */
export async function restRequest(target: RestTarget, token: string, table: string, query: Query, call: RestCall = {}): Promise<RestAnswer> {
  const { figures } = target;
  try {
    const response = await fetch(restUrl(target.url, table, query), {
      method: call.method ?? 'GET',
      headers: restHeaders(target.anonKey, token, call),
      body: call.body,
    });
    const text = await response.text();
    if (figures.recording) figures.bytes += Buffer.byteLength(text);
    if (response.status >= 400) figures.refuse(`rest ${response.status} ${codeOf(text)} ${table}`);
    return { status: response.status, text };
  } catch (error) {
    figures.refuse(`rest failed ${table} ${String((error as { cause?: { code?: unknown } }).cause?.code ?? (error as Error).message)}`);
    return { status: 0, text: '' };
  }
}

/** The `code` of a PostgREST error body, or `-`. */
function codeOf(text: string): string {
  try {
    return String((JSON.parse(text) as { code?: unknown }).code ?? '-');
  } catch {
    return '-';
  }
}
