import type { IncomingMessage, ServerResponse } from 'node:http';
import { TokenError, type TokenKeys } from '../auth/keys.js';
import { REQUEST_ROLES } from '../db/pool.js';
import type { Claims, Database } from '../db/index.js';
import { BodyTooLargeError, readBody } from '../http/body.js';
import type { ClientAddresses } from '../http/client-address.js';
import { bearerToken, sendJson } from '../http/respond.js';
import { sqlLiteral } from '../db/literals.js';
import { isJsonObject } from '../http/json.js';
import { checkLogicTrees, checkQueryBounds } from './bounds.js';
import { ident, tableOf, type Catalog } from './catalog.js';
import { invalidPathError, RestError, toRestError } from './errors.js';
import type { CallerGate } from './gate.js';
import { parsePrefer, wantsCsv, wantsNullsStripped, wantsSingleObject, type Preferences } from './prefer.js';
import { parseQuery } from './query.js';
import { planRpc } from './rpc.js';
import type { RefusalCache } from './refusals.js';
import { deleteStatement, insertStatement, selectStatement, updateStatement, type ResultRow, type Statement } from './sql.js';

/** Largest accepted request body: voice clips travel as base64 in JSON. */
export const REST_BODY_LIMIT = 2 * 1024 * 1024;

/**
 * What the REST layer needs: the database, the catalog of each exposed schema (the first is the
 * default, as in PostgREST's `db-schemas`), the token keys, the rate-limit refusals in force, the
 * reader of client addresses (an anonymous caller's turns are counted per address) and the gate
 * that gives callers their turns (gate.ts).
 */
export interface RestContext {
  db: Database;
  catalogs: ReadonlyMap<string, Catalog>;
  keys: TokenKeys;
  refusals: RefusalCache;
  clients: ClientAddresses;
  gate: CallerGate;
}

/** A request's context: the catalog of the schema it chose, and when it was taken. */
interface SchemaContext extends RestContext {
  catalog: Catalog;
  /** When the server took the request (performance.now()): its wait for a turn and a connection is counted from then. */
  takenAt: number;
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

/**
 * The catalog of the schema a request chooses, as PostgREST reads it: `Accept-Profile` for GET
 * and HEAD, `Content-Profile` for the other methods, the first exposed schema when absent.
 * PGRST106 (406) for a schema that is not exposed.
 */
function catalogOf(req: IncomingMessage, catalogs: ReadonlyMap<string, Catalog>): Catalog {
  const read = req.method === 'GET' || req.method === 'HEAD';
  const profile = req.headers[read ? 'accept-profile' : 'content-profile'];
  if (profile === undefined) return catalogs.values().next().value!;
  const catalog = typeof profile === 'string' ? catalogs.get(profile) : undefined;
  if (!catalog) throw new RestError(406, 'PGRST106', `The schema must be one of the following: ${[...catalogs.keys()].join(', ')}`);
  return catalog;
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  let text: string;
  try {
    text = await readBody(req, REST_BODY_LIMIT);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      throw new RestError(413, 'PGRST413', 'Payload Too Large', `Request bodies are limited to ${REST_BODY_LIMIT} bytes`);
    }
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new RestError(400, 'PGRST102', 'Empty or invalid json');
  }
}

/** The table name of a `/rest/v1/<table>` path in normal form (`http/request-path.ts`), percent-decoded; any other path is PGRST125. */
function tableNameOf(path: string): string {
  if (!/^\/[^/]+$/.test(path)) throw invalidPathError();
  return decodeURIComponent(path.slice(1));
}

function singleObject(row: ResultRow): string {
  if (row.page !== 1) {
    throw new RestError(406, 'PGRST116', 'Cannot coerce the result to a single JSON object', `The result contains ${row.page} rows`);
  }
  return JSON.stringify((JSON.parse(row.body) as unknown[])[0]);
}

/** A CSV cell as PostgREST writes it: quoted when needed, objects as JSON, null as empty. */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? jsonText(value) : String(value);
  return /[",\s]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** JSON as PostgreSQL prints jsonb: a space after each `:` and `,`. */
function jsonText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsonText).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${jsonText(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** A JSON array of rows as CSV with a header line. */
function toCsv(body: string): string {
  const rows = JSON.parse(body) as Record<string, unknown>[];
  if (!rows.length) return '';
  const columns = Object.keys(rows[0]!);
  return [columns.join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(','))].join('\n');
}

/** The keys whose value is null left out of every object, at any depth, as `json_strip_nulls` does. */
function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, stripNulls(v)]));
}

/** Thrown inside the transaction to roll back a `tx=rollback` request while keeping its answer. */
class RolledBack {
  constructor(readonly row: ResultRow) {}
}

/** Plans the statement of a request and the success status of its method. */
async function plan(req: IncomingMessage, ctx: SchemaContext, tableName: string, params: URLSearchParams) {
  const table = tableOf(ctx.catalog, tableName);
  checkLogicTrees(params);
  const query = parseQuery(ctx.catalog, table, params);
  checkQueryBounds(table, query, req.method === 'GET' || req.method === 'HEAD');
  const prefer = parsePrefer(req);
  switch (req.method) {
    case 'GET':
    case 'HEAD':
      return { query, prefer, statement: selectStatement(table, query, prefer.countExact), read: true };
    case 'POST': {
      const body = await readJsonBody(req);
      const rows = Array.isArray(body) ? body : [body];
      if (!rows.every(isJsonObject)) throw new RestError(400, 'PGRST102', 'All object keys must match');
      return { query, prefer, statement: insertStatement(table, query, rows, prefer), read: false };
    }
    case 'PATCH': {
      const body = await readJsonBody(req);
      if (!isJsonObject(body)) throw new RestError(400, 'PGRST102', 'Empty or invalid json');
      return { query, prefer, statement: updateStatement(table, query, body, prefer), read: false };
    }
    case 'DELETE':
      return { query, prefer, statement: deleteStatement(table, query, prefer), read: false };
    default:
      throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${req.method}`);
  }
}

function successStatus(method: string, row: ResultRow | null, total: number | null, offset: number, body: boolean): number {
  if (method === 'POST') return row && row.page > 0 && row.inserted === 0 && body ? 200 : 201;
  if (method === 'GET' || method === 'HEAD') {
    return total !== null && row && (offset > 0 || offset + row.page < total) ? 206 : 200;
  }
  return body ? 200 : 204;
}

/**
 * Runs `statement` under `claims`. With `single`, anything but one row is PGRST116; over
 * max-affected (handling=strict) is PGRST124; both roll the write back. `tx=rollback` rolls
 * back after the answer is computed. A statement whose answer decides nothing about its commit
 * (every read, and a write with none of those three) is opened, run and committed in one round
 * trip to the database; the others take two.
 */
async function run(ctx: SchemaContext, claims: Claims, statement: Statement, single: boolean, prefer: Preferences, write: boolean): Promise<ResultRow> {
  const { db, takenAt } = ctx;
  const schema = ctx.catalog.schema;
  // As PostgREST: the chosen schema first on the search path, then public.
  const searchPath = schema === 'public' ? '' : `select set_config('search_path', ${sqlLiteral(`${ident(schema)}, public`)}, true); `;
  const parameterized = { prefix: searchPath, text: statement.sql, params: statement.params };
  const strict = write && prefer.strict && prefer.maxAffected !== undefined;
  const answer = (row: ResultRow): ResultRow => {
    if (strict && row.page > prefer.maxAffected!) {
      throw new RestError(400, 'PGRST124', 'Query result exceeds max-affected preference constraint', `The query affects ${row.page} rows`);
    }
    return { ...row, body: single && row.body !== null ? singleObject(row) : row.body };
  };
  if (!prefer.rollback && !(write && (single || strict))) return answer((await db.runWithClaims<ResultRow>(claims, parameterized, undefined, takenAt)).rows[0]!);
  let result: ResultRow | undefined;
  try {
    await db.runWithClaims<ResultRow>(claims, parameterized, ({ rows }) => {
      // Checked inside the transaction so that a write with a wrong row count is rolled back.
      result = answer(rows[0]!);
      if (prefer.rollback) throw new RolledBack(result);
    }, takenAt);
  } catch (error) {
    if (error instanceof RolledBack) return error.row;
    throw error;
  }
  return result!;
}

/** Serves `/rest/v1/rpc/<name>` with GET, HEAD or POST: a function call under the caller's role and claims. */
async function serveRpc(req: IncomingMessage, res: ServerResponse, name: string, params: URLSearchParams, ctx: SchemaContext, claims: Claims) {
  const method = req.method!;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    throw new RestError(405, 'PGRST101', 'Only GET, HEAD and POST are allowed for function calls');
  }
  const read = method !== 'POST';
  const prefer = parsePrefer(req);
  checkLogicTrees(params);
  const body = read ? undefined : await readRpcBody(req);
  const plan = planRpc(ctx.catalog, name, params, body, read, prefer);
  const single = wantsSingleObject(req);
  // A function may write: max-affected (handling=strict) bounds the rows it returns, as for a write.
  const row = await run(ctx, claims, plan.statement, single && plan.shape === 'rows', prefer, true);
  const headers: Record<string, string> = {};
  if (plan.shape !== 'void') {
    const range = row.page > 0 ? `${plan.offset}-${plan.offset + row.page - 1}` : '*';
    headers['Content-Range'] = `${range}/${row.total ?? '*'}`;
  }
  if (plan.shape === 'void') {
    res.writeHead(204, headers);
    res.end();
    return;
  }
  let text = row.body ?? 'null';
  if (plan.shape === 'row') text = JSON.stringify((JSON.parse(text) as unknown[])[0] ?? null);
  if (method === 'HEAD') {
    res.writeHead(200, headers);
    res.end();
    return;
  }
  if (wantsCsv(req) && plan.shape === 'rows' && !single) {
    res.writeHead(200, { ...headers, 'Content-Type': 'text/csv; charset=utf-8' });
    res.end(toCsv(text));
    return;
  }
  sendJson(res, 200, text, headers);
}

/** An RPC body: JSON, or empty (no arguments). */
async function readRpcBody(req: IncomingMessage): Promise<unknown> {
  const length = req.headers['content-length'];
  if (length === '0') return {};
  return readJsonBody(req);
}

/** Serves a table request once its caller's turn has come: plans it, runs it and answers. */
async function serveTable(req: IncomingMessage, res: ServerResponse, scoped: SchemaContext, claims: Claims, tableName: string, params: URLSearchParams): Promise<void> {
  const { query, prefer, statement, read } = await plan(req, scoped, tableName, params);
  const method = req.method!;
  const single = wantsSingleObject(req);
  const representation = read || prefer.representation;
  const row = statement ? await run(scoped, claims, statement, single, prefer, !read) : null;
  const status = successStatus(method, row, row?.total ?? null, query.offset, representation);
  const headers: Record<string, string> = {};
  if (prefer.applied.length) headers['Preference-Applied'] = prefer.applied.join(', ');
  if (row && (read || row.total !== null)) {
    const range = row.page > 0 ? `${query.offset}-${query.offset + row.page - 1}` : '*';
    headers['Content-Range'] = `${range}/${row.total ?? '*'}`;
  }
  if (method === 'HEAD') {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const body = row && representation ? row.body ?? '[]' : method === 'POST' && representation ? '[]' : undefined;
  if (body !== undefined && wantsCsv(req)) {
    res.writeHead(status, { ...headers, 'Content-Type': 'text/csv; charset=utf-8' });
    res.end(single ? body : toCsv(body));
    return;
  }
  sendJson(res, status, body !== undefined && wantsNullsStripped(req) ? JSON.stringify(stripNulls(JSON.parse(body))) : body, headers);
}

/**
 * Who a request counts against at the gate: the signed-in user, else (anon) the address it
 * comes from; null for the service role, which is the project's own code.
 */
function callerOf(req: IncomingMessage, claims: Claims, clients: ClientAddresses): string | null {
  if (claims.role === 'service_role') return null;
  return typeof claims.sub === 'string' ? `user:${claims.sub}` : `address:${clients.of(req)}`;
}

/** Runs `serve` in a turn of the request's caller (see {@link createCallerGate}). */
async function inTurn(req: IncomingMessage, claims: Claims, ctx: RestContext, serve: () => Promise<void>): Promise<void> {
  const caller = callerOf(req, claims, ctx.clients);
  const leave = caller === null ? null : await ctx.gate.enter(caller);
  try {
    await serve();
  } finally {
    leave?.();
  }
}

/**
 * Serves `/rest/v1/<table>` (`path` is the part after `/rest/v1`): the PostgREST subset of the
 * wire-protocol reference, each request in one transaction under the caller's role and claims.
 * Throws {@link RestError} for anything that is not a success.
 */
export async function handleRest(req: IncomingMessage, res: ServerResponse, path: string, ctx: RestContext): Promise<void> {
  const takenAt = performance.now();
  let authenticated = false;
  let refusalKey: string | null = null;
  try {
    const claims = await authorize(req, ctx.keys);
    authenticated = claims.role !== 'anon';
    const scoped: SchemaContext = { ...ctx, catalog: catalogOf(req, ctx.catalogs), takenAt };
    const url = new URL(req.url ?? '/', 'http://x');
    const rpc = /^\/rpc\/([^/]+)$/.exec(path);
    if (rpc) {
      await inTurn(req, claims, ctx, () => serveRpc(req, res, decodeURIComponent(rpc[1]!), url.searchParams, scoped, claims));
      return;
    }
    const tableName = tableNameOf(path);
    if (req.method !== 'GET' && req.method !== 'HEAD' && typeof claims.sub === 'string') {
      refusalKey = `${claims.sub}\0${scoped.catalog.schema}.${tableName}\0${req.method}`;
      const refused = ctx.refusals.find(refusalKey);
      if (refused) {
        // Not remembered again: the window ends when the next token is due, however many repeats.
        refusalKey = null;
        throw refused;
      }
    }
    await inTurn(req, claims, ctx, () => serveTable(req, res, scoped, claims, tableName, url.searchParams));
  } catch (error) {
    const refusal = toRestError(error, authenticated);
    if (refusalKey) ctx.refusals.remember(refusalKey, refusal);
    throw refusal;
  }
}
