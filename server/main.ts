import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './app.js';
import { ConfigError } from './auth/site.js';
import { readEnv } from './config.js';
import { DataDirLockedError } from './db/index.js';

/** The built client sits in `public/` next to this bundle; only that folder is served. */
const publicDir = join(dirname(fileURLToPath(import.meta.url)), 'public');

try {
  const server = await startServer({ ...readEnv(process.env), publicDir });
  console.log(`Service-role key (secret, for operators and tools only): ${server.serviceRoleKeyFile}`);
  console.log(`Tessera listening on ${server.url}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`close after ${signal} failed`, error);
        process.exit(1);
      },
    );
  };
  void server.lost.then((error) => {
    console.error(error.message);
    process.exit(1);
  });
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (error) {
  console.error(error instanceof DataDirLockedError || error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
