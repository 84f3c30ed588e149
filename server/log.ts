import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import pino, { type Logger } from 'pino';
import { logLinesDropped } from './metrics.js';

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
 * Bytes of log lines kept in memory while standard output cannot take them (a reader behind, a
 * full pipe or journald socket); past it, lines are dropped and counted.
 */
export const MAX_UNWRITTEN_LOG_BYTES = 16 * 1024 * 1024;

/**
 * Where the lines go: standard output, written asynchronously. A line is handed to the kernel at
 * once when nothing is being written, otherwise with the lines queued behind the write under
 * way; a reader that falls behind never stops the event loop (a synchronous write that finds the
 * pipe full would sleep 100 ms, the whole server with it). Lines past MAX_UNWRITTEN_LOG_BYTES
 * are dropped and counted by `tessera_log_lines_dropped_total`; what is queued is written out
 * before the process exits.
 */
const destination = pino.destination({ dest: 1, sync: false, maxLength: MAX_UNWRITTEN_LOG_BYTES });
destination.on('drop', () => logLinesDropped.inc());
process.on('exit', () => {
  try {
    destination.flushSync();
  } catch {
    // Standard output is gone: nothing more can be said.
  }
});

/** What every line of the server's loggers has: the level from `LOG_LEVEL`, the process id, the time in ISO 8601. */
const LINE_OPTIONS = {
  level: process.env.LOG_LEVEL && (LOG_LEVELS as readonly string[]).includes(process.env.LOG_LEVEL) ? process.env.LOG_LEVEL : 'info',
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
};

/**
 * The server's log: one JSON object a line on standard output (pino), with `time` in ISO 8601,
 * `level` as a number (30 info, 40 warn, 50 error) and `msg`. The level is `LOG_LEVEL` (default
 * `info`).
 */
export const log: Logger = pino({ ...LINE_OPTIONS, redact: { paths: REDACTED, censor: '[Redacted]' } }, destination);

/**
 * The access log's lines, one a finished request (server/request-log.ts), on the same output as
 * {@link log}. They are built only from fields chosen for it (request id, method, path without its
 * query, client address, status, milliseconds), none named as a secret is, so they skip the
 * redaction every other line passes: about 15 µs a line, four times the rest of its cost, and the
 * largest allocator of a crowd's server (15% of its bytes).
 */
export const accessLog: Logger = pino(LINE_OPTIONS, destination);

/** A request id given by a proxy in front (`X-Request-Id`) is kept when it is this short and plain. */
const INCOMING_ID = /^[\w.:-]{1,64}$/;

/** The id of a request: the proxy's `X-Request-Id` when plain, otherwise a new UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && INCOMING_ID.test(given) ? given : randomUUID();
}
