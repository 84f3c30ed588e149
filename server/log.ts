import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import pino, { type Logger } from 'pino';

/** The levels `LOG_LEVEL` may name, quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/**
 * Fields that could carry a secret if an object holding one were ever logged: they are written as
 * `[Redacted]`. Lines are built from chosen fields (method, path without its query, status), so
 * nothing reaches them by default; this is the second line of defence.
 */
const REDACTED = [
  'authorization', 'apikey', 'password', 'token', 'access_token', 'refresh_token', 'signature', 'secret', 'key',
  '*.authorization', '*.apikey', '*.password', '*.token', '*.access_token', '*.refresh_token', '*.signature', '*.secret', '*.key',
  'headers.authorization', 'headers.apikey', 'headers.cookie', '*.headers.authorization', '*.headers.apikey', '*.headers.cookie',
];

/**
 * The server's log: one JSON object a line on standard output (pino), with `time` in ISO 8601,
 * `level` as a number (30 info, 40 warn, 50 error) and `msg`. The level is `LOG_LEVEL` (default
 * `info`).
 */
export const log: Logger = pino({
  level: process.env.LOG_LEVEL && (LOG_LEVELS as readonly string[]).includes(process.env.LOG_LEVEL) ? process.env.LOG_LEVEL : 'info',
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
  redact: { paths: REDACTED, censor: '[Redacted]' },
});

/** A request id given by a proxy in front (`X-Request-Id`) is kept when it is this short and plain. */
const INCOMING_ID = /^[\w.:-]{1,64}$/;

/** The id of a request: the proxy's `X-Request-Id` when plain, otherwise a new UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && INCOMING_ID.test(given) ? given : randomUUID();
}
