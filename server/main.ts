import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './app.js';
import { ConfigError } from './auth/site.js';
import { readEnv } from './config.js';
import { DataDirLockedError } from './db/index.js';
import { log } from './log.js';

/**
 * Uncaught exceptions tolerated within {@link UNCAUGHT_WINDOW_MS} before the process gives up:
 * one stray failure (a callback of one client's work) is logged and the server goes on serving
 * everyone else; a stream of them means its state can no longer be trusted, and it exits so that
 * its supervisor starts it afresh.
 */
const MAX_UNCAUGHT_PER_WINDOW = 10;
const UNCAUGHT_WINDOW_MS = 60_000;

/**
 * Last-resort handlers: every failure should be handled where it happens (each socket, timer and
 * request contains its own), so reaching these is a bug, logged with its stack. A rejected
 * promise leaves no state half-changed and is only logged; an uncaught exception is too, until
 * {@link MAX_UNCAUGHT_PER_WINDOW} of them in a window make the process exit.
 */
function installLastResortHandlers(): void {
  let windowStart = 0;
  let inWindow = 0;
  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, 'unhandled rejection (server keeps serving)');
  });
  process.on('uncaughtException', (error) => {
    const now = performance.now();
    if (now - windowStart > UNCAUGHT_WINDOW_MS) {
      windowStart = now;
      inWindow = 0;
    }
    inWindow += 1;
    if (inWindow > MAX_UNCAUGHT_PER_WINDOW) {
      log.fatal({ err: error }, `uncaught exception, the ${inWindow}th within ${UNCAUGHT_WINDOW_MS / 1000} s: exiting`);
      process.exit(1);
    }
    log.error({ err: error }, 'uncaught exception (server keeps serving)');
  });
}

/** The built client sits in `public/` next to this bundle; only that folder is served. */
const publicDir = join(dirname(fileURLToPath(import.meta.url)), 'public');

installLastResortHandlers();
try {
  const { logLevel, ...settings } = readEnv(process.env);
  log.level = logLevel;
  const server = await startServer({ ...settings, publicDir });
  log.info(`Service-role key (secret, for operators and tools only): ${server.serviceRoleKeyFile}`);
  log.info(`Tessera listening on ${server.url}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: stopping`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, `close after ${signal} failed`);
        process.exit(1);
      },
    );
  };
  void server.lost.then((error) => {
    log.fatal(error.message);
    process.exit(1);
  });
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (error) {
  if (error instanceof DataDirLockedError || error instanceof ConfigError) log.fatal((error as Error).message);
  else log.fatal({ err: error }, (error as Error).message);
  process.exit(1);
}
