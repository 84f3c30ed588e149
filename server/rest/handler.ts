import type { IncomingMessage, ServerResponse } from 'node:http';
import { TokenError, type TokenKeys } from '../auth/keys.js';
import { REQUEST_ROLES } from '../db/open.js';
import type { Claims, Database } from '../db/index.js';
import { BodyTooLargeError, readBody } from '../http/body.js';
import { bearerToken, sendJson } from '../http/respond.js';
import { tableOf, type Catalog } from './catalog.js';
import { RestError, toRestError } from './errors.js';
import { parsePrefer, wantsSingleObject } from './prefer.js';
import { parseQuery } from './query.js';
import type { RefusalCache } from './refusals.js';
import { deleteStatement, insertStatement, selectStatement, updateStatement, type ResultRow, type Statement } from './sql.js';

/** Largest accepted request body: voice clips travel as base64 in JSON. */
export const REST_BODY_LIMIT = 2 * 1024 * 1024;

/** What the REST layer needs: the database, its exposed tables, the token keys and the rate-limit refusals in force. */
export interface RestContext {
  db: Database;
  catalog: Catalog;
  keys: TokenKeys;
  refusals: RefusalCache;
}

async function authorize(req: IncomingMessage, keys: TokenKeys): Promise<Claims> {
  const apikey = req.headers.apikey;
  const token = bearerToken(req) ?? (typeof apikey === 'string' ? apikey : undefined);
  if (!token) throw new RestError(401, 'PGRST301', 'No API key found in request', null, 'Send the anon key as apikey');
  try {
    const claims = await keys.verify(token);
    if (!(REQUEST_ROLES as readonly string[]).includes(claims.role)) {
      throw new RestError(401, 'PGRST301', 'JWT role is not allowed');
    }
    return claims;
  } catch (error) {
    if (error instanceof TokenError) {
      throw error.reason === 'expired'
        ? new RestError(401, 'PGRST303', 'JWT expired')
        : new RestError(401, 'PGRST301', error.message);
    }
    throw error;
  }
}

function checkProfile(req: IncomingMessage): void {
  const profile = req.headers['accept-profile'] ?? req.headers['content-profile'];
  if (profile !== undefined && profile !== 'public') {
    throw new RestError(406, 'PGRST106', 'The schema must be one of the following: public');
  }
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  let text: string;
  try {
    text = await readBody(req, REST_BODY_LIMIT);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      // The rest of the body is never read, so the connection cannot carry another request.
      throw new RestError(413, 'PGRST413', 'Payload Too Large', `Request bodies are limited to ${REST_BODY_LIMIT} bytes`, null, { Connection: 'close' });
    }
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new RestError(400, 'PGRST102', 'Empty or invalid json');
  }
}

/** The table name of a `/rest/v1/<table>` path, percent-decoded. */
function tableNameOf(path: string): string {
  try {
    return decodeURIComponent(path.slice(1));
  } catch {
    throw new RestError(400, 'PGRST100', 'The path is not valid percent-encoding', path);
  }
}

function isRow(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function singleObject(row: ResultRow): string {
  if (row.page !== 1) {
    throw new RestError(406, 'PGRST116', 'Cannot coerce the result to a single JSON object', `The result contains ${row.page} rows`);
  }
  return JSON.stringify((JSON.parse(row.body) as unknown[])[0]);
}

/** Plans the statement of a request and the success status of its method. */
async function plan(req: IncomingMessage, ctx: RestContext, tableName: string, params: URLSearchParams) {
  const table = tableOf(ctx.catalog, tableName);
  const query = parseQuery(table, params);
  const prefer = parsePrefer(req);
  switch (req.method) {
    case 'GET':
    case 'HEAD':
      return { query, prefer, statement: selectStatement(table, query, prefer.countExact), read: true };
    case 'POST': {
      const body = await readJsonBody(req);
      const rows = Array.isArray(body) ? body : [body];
      if (!rows.every(isRow)) throw new RestError(400, 'PGRST102', 'All object keys must match');
      return { query, prefer, statement: insertStatement(table, query, rows, prefer), read: false };
    }
    case 'PATCH': {
      const body = await readJsonBody(req);
      if (!isRow(body)) throw new RestError(400, 'PGRST102', 'Empty or invalid json');
      return { query, prefer, statement: updateStatement(table, query, body, prefer.representation), read: false };
    }
    case 'DELETE':
      return { query, prefer, statement: deleteStatement(table, query, prefer.representation), read: false };
    default:
      throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${req.method}`);
  }
}

function successStatus(method: string, row: ResultRow | null, total: number | null, offset: number): number {
  if (method === 'POST') return row && row.page > 0 && row.inserted === 0 ? 200 : 201;
  if (method === 'GET' || method === 'HEAD') {
    return total !== null && row && (offset > 0 || offset + row.page < total) ? 206 : 200;
  }
  return row ? 200 : 204;
}

async function run(db: Database, claims: Claims, statement: Statement, representation: boolean, single: boolean) {
  return db.withClaims(claims, async (tx) => {
    if (!representation) {
      await tx.query(statement.sql, statement.params);
      return null;
    }
    const row = (await tx.query<ResultRow>(statement.sql, statement.params)).rows[0]!;
    // Checked inside the transaction so that a write with a wrong row count is rolled back.
    const body = single ? singleObject(row) : row.body;
    return { ...row, body };
  });
}

/**
 * Serves `/rest/v1/<table>` (`path` is the part after `/rest/v1`): the PostgREST subset of the
 * wire-protocol reference, each request in one transaction under the caller's role and claims.
 * Throws {@link RestError} for anything that is not a success.
 */
export async function handleRest(req: IncomingMessage, res: ServerResponse, path: string, ctx: RestContext): Promise<void> {
  let authenticated = false;
  let refusalKey: string | null = null;
  try {
    const claims = await authorize(req, ctx.keys);
    authenticated = claims.role !== 'anon';
    checkProfile(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const tableName = tableNameOf(path);
    if (req.method !== 'GET' && req.method !== 'HEAD' && typeof claims.sub === 'string') {
      refusalKey = `${claims.sub}\0${tableName}\0${req.method}`;
      const refused = ctx.refusals.find(refusalKey);
      if (refused) {
        // Not remembered again: the window ends when the next token is due, however many repeats.
        refusalKey = null;
        throw refused;
      }
    }
    const { query, prefer, statement, read } = await plan(req, ctx, tableName, url.searchParams);
    const method = req.method!;
    const single = wantsSingleObject(req);
    const representation = read || prefer.representation;
    const row = statement ? await run(ctx.db, claims, statement, representation, single) : null;
    const status = successStatus(method, row, row?.total ?? null, query.offset);
    const headers: Record<string, string> = {};
    if (read && row) {
      const range = row.page > 0 ? `${query.offset}-${query.offset + row.page - 1}` : '*';
      headers['Content-Range'] = `${range}/${row.total ?? '*'}`;
    }
    if (method === 'HEAD') {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    const body = row ? row.body : method === 'POST' && representation ? '[]' : undefined;
    sendJson(res, status, body, headers);
  } catch (error) {
    const refusal = toRestError(error, authenticated);
    if (refusalKey) ctx.refusals.remember(refusalKey, refusal);
    throw refusal;
  }
}
