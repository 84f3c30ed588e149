import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './app.js';
import { DataDirLockedError } from './db/index.js';

const port = Number(process.env.PORT ?? 5173);
const dataDir = process.env.DATA_DIR ?? './data';
const distDir = dirname(fileURLToPath(import.meta.url));

try {
  const server = await startServer({ port, dataDir, distDir });
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
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (error) {
  console.error(error instanceof DataDirLockedError ? error.message : error);
  process.exit(1);
}
