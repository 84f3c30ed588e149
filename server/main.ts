import { createServer } from 'node:http';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStaticHandler } from './static.js';

const port = Number(process.env.PORT ?? 5173);
const distDir = dirname(fileURLToPath(import.meta.url));
const serveStatic = createStaticHandler(distDir);

const server = createServer((req, res) => {
  serveStatic(req, res).catch((error: unknown) => {
    console.error('static error', error);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});

server.listen(port, () => console.log(`Tessera listening on http://localhost:${port}`));
