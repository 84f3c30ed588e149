import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './app.js';
import { ConfigError } from './auth/site.js';
import { readEnv } from './config.js';
import { DataDirLockedError } from './db/index.js';
import { log } from './log.js';

/** The built client sits in `public/` next to this bundle; only that folder is served. */
const publicDir = join(dirname(fileURLToPath(import.meta.url)), 'public');

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
