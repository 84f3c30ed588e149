/**
 * Loaded with `--import` before realtime-check: resolves its `import { SQL } from "bun"` to
 * {@link ./bun-sql.ts} and gives Node 20 the global WebSocket that realtime-js needs. tsx runs
 * the check as CommonJS while its folder's package.json has no `"type": "module"`, and as an ES
 * module once it has one, so both resolvers are taught the name.
 */
import Module, { register } from 'node:module';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const shim = new URL('./bun-sql.ts', import.meta.url);

const hooks = `export async function resolve(specifier, context, next) {
  return specifier === 'bun' ? { url: ${JSON.stringify(shim.href)}, shortCircuit: true } : next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

type Resolver = (request: string, ...rest: unknown[]) => string;
const commonJs = Module as unknown as { _resolveFilename: Resolver };
const resolveFilename = commonJs._resolveFilename;
commonJs._resolveFilename = function (this: unknown, request, ...rest) {
  return resolveFilename.call(this, request === 'bun' ? fileURLToPath(shim) : request, ...rest);
};

if (typeof globalThis.WebSocket === 'undefined') (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
