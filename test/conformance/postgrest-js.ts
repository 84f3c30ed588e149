/**
 * Runs postgrest-js's own jest suite (supabase-js monorepo, `packages/core/postgrest-js/test`)
 * against the embedded server and prints its score as one JSON line `{passed, failed, total}`.
 *
 * The suite stays outside this repository. Put a copy of supabase-js somewhere (a clone, or
 * `git archive HEAD | tar -x -C <dir>` of a mirror) and install the suite's dev dependencies
 * next to it, in `<dir>/packages/core` (jest resolves them by walking up from the suite):
 *
 *   cd <dir>/packages/core && cat > package.json <<'EOF'
 *   { "private": true, "devDependencies": { "jest": "30.4.2", "ts-jest": "^29.4.9",
 *     "@jest/types": "^30.0.0", "@jest/test-sequencer": "^30.0.0", "@types/jest": "30.0.0",
 *     "@types/node": "20.19.9", "prettier": "^3.6.2", "typescript": "~5.8.3",
 *     "type-fest": "^4.32.0", "zod": "^3.25.76", "tslib": "2.8.1" } }
 *   EOF
 *   npm install --no-audit --no-fund        # add --offline once the npm cache holds them
 *
 * Then: `npm run conformance:postgrest -- <dir>` (or POSTGREST_JS_SUITE=<dir>). Needs
 * `node build.mjs` first and port 54321 free: the suite's URL is fixed to
 * `http://localhost:54321/rest/v1`.
 *
 * What it does: creates a DATA_DIR, applies the game's migrations and then the suite's
 * `test/supabase/migrations/*.sql` and `seed.sql` as the database owner (see
 * {@link suiteSchema} for the few lines PostgreSQL without PostGIS cannot run), starts the
 * built server on it (exposing schemas `public` and `personal` through `PGRST_DB_SCHEMAS`, as
 * the suite's PostgREST does), and serves port 54321 through a small gateway that adds the anon key as
 * `apikey` when a request has none (hosted Supabase's gateway demands one; the suite's local
 * stack lets keyless requests through as anon). Jest runs with `--ci`, so inline snapshots are
 * compared, never rewritten. `test/v12` is skipped as upstream's own CI does (it needs
 * PostgREST 12).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { startDatabase } from '../../server/db/index.js';
import { makeDataDir, removeDataDir, startServer, type TestServer } from '../support/server.js';

/** The port the suite's REST_URL names. */
const SUITE_PORT = 54321;

/** Where the suite lives: `packages/core/postgrest-js` of the given supabase-js copy. */
function suiteDir(): string {
  const given = process.argv[2] ?? process.env.POSTGREST_JS_SUITE;
  if (!given) {
    console.error('usage: npm run conformance:postgrest -- <supabase-js copy>  (or POSTGREST_JS_SUITE); see the header of test/conformance/postgrest-js.ts');
    process.exit(2);
  }
  const root = resolve(given);
  const dir = existsSync(join(root, 'test', 'supabase')) ? root : join(root, 'packages', 'core', 'postgrest-js');
  if (!existsSync(join(dir, 'test', 'supabase', 'seed.sql'))) throw new Error(`no postgrest-js suite under ${root}`);
  return dir;
}

/**
 * The suite's schema and seed, as SQL this PostgreSQL can run: without PostGIS the one
 * geometry column is text (the geo tests then fail, as they must), the `authenticator` role
 * settings (PostgREST configuration) are dropped, and anon/authenticated get the privileges
 * the Supabase CLI's default grants give them on the suite's objects.
 */
async function suiteSchema(dir: string): Promise<string> {
  const migrations = join(dir, 'test', 'supabase', 'migrations');
  const files = (await readdir(migrations)).filter((f) => f.endsWith('.sql')).sort();
  const parts = await Promise.all([...files.map((f) => join(migrations, f)), join(dir, 'test', 'supabase', 'seed.sql')]
    .map((file) => readFile(file, 'utf8')));
  const [seed] = parts.splice(-1);
  const schema = parts.join('\n')
    .replace(/^alter role authenticator .*$/gim, '')
    .replace(/^create extension if not exists postgis .*$/gim, '')
    .replace(/extensions\.geometry\(POINT, 4326\)/gi, 'text');
  const grants = `
    grant usage on schema public, personal to anon, authenticated, service_role;
    grant all on all tables in schema public, personal to anon, authenticated, service_role;
    grant all on all sequences in schema public, personal to anon, authenticated, service_role;
    grant execute on all functions in schema public, personal to anon, authenticated, service_role;`;
  return `${schema}\n${grants}\n${seed}\n`;
}

/** Forwards port {@link SUITE_PORT} to `server`, adding `apikey: <anon key>` when absent. */
function startGateway(server: TestServer): Promise<Server> {
  const target = new URL(server.url);
  const gateway = createServer((req, res) => {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    if (!headers.apikey) headers.apikey = server.anonKey;
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      res.writeHead(502);
      res.end(error.message);
    });
    req.pipe(upstream);
  });
  return new Promise((resolveListen, reject) => {
    gateway.once('error', reject);
    gateway.listen(SUITE_PORT, '127.0.0.1', () => resolveListen(gateway));
  });
}

interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  numTotalTests: number;
  testResults: { name: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

/** Runs jest on the suite and returns its JSON report. */
async function runJest(dir: string, outputFile: string): Promise<JestReport> {
  const jest = [join(dir, '..'), join(dir, '..', '..', '..')].map((p) => join(p, 'node_modules', 'jest', 'bin', 'jest.js')).find(existsSync);
  if (!jest) throw new Error(`jest is not installed next to ${dir}: see the header of test/conformance/postgrest-js.ts`);
  const config = {
    rootDir: dir,
    preset: 'ts-jest',
    testEnvironment: 'node',
    testSequencer: '<rootDir>/test/testSequencer.js',
    testTimeout: 30000,
    testPathIgnorePatterns: ['/node_modules/', '/test/v12/'],
    transform: { '^.+\\.tsx?$': ['ts-jest', { tsconfig: join(dir, 'tsconfig.test.json') }] },
  };
  const args = [jest, '--ci', '--runInBand', '--json', `--outputFile=${outputFile}`, `--config=${JSON.stringify(config)}`, ...process.argv.slice(3)];
  await new Promise<void>((resolveRun, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', () => resolveRun());
  });
  return JSON.parse(await readFile(outputFile, 'utf8')) as JestReport;
}

async function main(): Promise<void> {
  const dir = suiteDir();
  const dataDir = await makeDataDir();
  let server: TestServer | undefined;
  let gateway: Server | undefined;
  try {
    const db = await startDatabase({ dataDir, migrationsDir: join(process.cwd(), 'supabase', 'migrations') });
    try {
      await db.exec(await suiteSchema(dir));
    } finally {
      await db.close();
    }
    server = await startServer({ dataDir, env: { PGRST_DB_SCHEMAS: 'public,personal' } });
    gateway = await startGateway(server);
    const outputFile = join(dataDir, 'jest-report.json');
    const report = await runJest(dir, outputFile);
    if (process.env.POSTGREST_JS_FAILURES) {
      for (const file of report.testResults) {
        for (const test of file.assertionResults) {
          if (test.status === 'failed') console.error(`FAIL ${file.name.slice(dir.length + 1)} › ${test.fullName}`);
        }
      }
    }
    console.log(JSON.stringify({ passed: report.numPassedTests, failed: report.numFailedTests, total: report.numTotalTests }));
  } finally {
    await new Promise((done) => (gateway ? gateway.close(done) : done(undefined)));
    if (server) await server.stop();
    await removeDataDir(dataDir);
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
