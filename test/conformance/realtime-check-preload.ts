/**
 * Loaded with `--import` before realtime-check: resolves its `import { SQL } from "bun"` to
 * {@link ./bun-sql.ts} and gives Node 20 the global WebSocket that realtime-js needs.
 */
import { register } from 'node:module';
import WebSocket from 'ws';

const shim = new URL('./bun-sql.ts', import.meta.url).href;
const hooks = `export async function resolve(specifier, context, next) {
  return specifier === 'bun' ? { url: ${JSON.stringify(shim)}, shortCircuit: true } : next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

if (typeof globalThis.WebSocket === 'undefined') (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
