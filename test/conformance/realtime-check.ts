/**
 * Runs Supabase Realtime's own check tool, realtime-check (supabase/realtime,
 * `test/e2e/realtime-check.ts`), against the embedded server, and prints its score as one JSON
 * line `{passed, failed, total}`, then each failing test with its reason.
 *
 * The tool stays outside this repository. Put a copy of its folder somewhere and install its
 * dependencies there (it is written for Bun; here it runs on Node with tsx):
 *
 *   mkdir -p <dir> && git -C <realtime mirror or clone> archive HEAD test/e2e | tar -x -C <dir>
 *   cd <dir>/test/e2e && npm install --no-audit --no-fund --no-package-lock
 *
 * Then: `npm run conformance:realtime -- <dir>/test/e2e` (or REALTIME_CHECK_SUITE=<dir>/test/e2e).
 * Needs `node build.mjs` first. Further arguments replace `--test functional` (e.g.
 * `-- <dir> --test broadcast,presence`).
 *
 * What it does: starts the built server on a fresh DATA_DIR, reads the service-role key from
 * `DATA_DIR/service_role.key` (the server never serves it), and, as the Supabase CLI's local
 * stack does, lets tables the `postgres` role makes in `public` be used by anon, authenticated
 * and service_role (realtime-check makes its tables that way and then uses them over REST). It
 * runs `realtime-check --env local --url <server> --db-url <embedded PostgreSQL as postgres,
 * over its Unix socket> --publishable-key <anon> --secret-key <service_role> --json --test
 * functional`, with two stand-ins for Bun (realtime-check-preload.ts): `bun`'s SQL client over
 * `pg`, and a global WebSocket for Node 20.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedDatabaseUrl } from '../support/cluster.js';
import { connectAsOperator, startServer, type TestServer } from '../support/server.js';

/** The folder holding `realtime-check.ts` and its installed dependencies. */
function suiteDir(): string {
  const given = process.argv[2] ?? process.env.REALTIME_CHECK_SUITE;
  if (!given) {
    console.error('usage: npm run conformance:realtime -- <copy of supabase/realtime test/e2e>  (or REALTIME_CHECK_SUITE); see the header of test/conformance/realtime-check.ts');
    process.exit(2);
  }
  const root = resolve(given);
  const dir = existsSync(join(root, 'realtime-check.ts')) ? root : join(root, 'test', 'e2e');
  if (!existsSync(join(dir, 'realtime-check.ts'))) throw new Error(`no realtime-check.ts under ${root}`);
  if (!existsSync(join(dir, 'node_modules', '@supabase', 'supabase-js'))) {
    throw new Error(`realtime-check's dependencies are not installed in ${dir}: see the header of test/conformance/realtime-check.ts`);
  }
  return dir;
}

/** The Supabase CLI's default privileges for what `postgres` creates in `public`. */
async function grantLikeLocalStack(server: TestServer): Promise<void> {
  const client = await connectAsOperator(server);
  try {
    await client.query(`
      alter default privileges for role postgres in schema public grant all on tables to anon, authenticated, service_role;
      alter default privileges for role postgres in schema public grant all on sequences to anon, authenticated, service_role;
      alter default privileges for role postgres in schema public grant all on functions to anon, authenticated, service_role;`);
  } finally {
    await client.end();
  }
}

interface CheckTest {
  name: string;
  passed: boolean;
  error?: string;
}

interface CheckReport {
  summary: { total: number; passed: number; failed: number };
  suites: Record<string, { tests: CheckTest[] }>;
}

/** Runs realtime-check with `args` and returns its JSON report (its progress goes to stderr). */
async function runCheck(dir: string, args: string[]): Promise<CheckReport> {
  const preload = fileURLToPath(new URL('./realtime-check-preload.ts', import.meta.url));
  let stdout = '';
  await new Promise<void>((resolveRun, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', preload, join(dir, 'realtime-check.ts'), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('error', reject);
    child.once('exit', () => resolveRun());
  });
  const start = stdout.indexOf('{');
  if (start < 0) throw new Error(`realtime-check printed no report: ${stdout}`);
  return JSON.parse(stdout.slice(start)) as CheckReport;
}

async function main(): Promise<void> {
  const dir = suiteDir();
  const server = await startServer();
  try {
    await grantLikeLocalStack(server);
    const serviceRoleKey = (await readFile(join(server.dataDir, 'service_role.key'), 'utf8')).trim();
    const tests = process.argv.length > 3 ? process.argv.slice(3) : ['--test', 'functional'];
    const report = await runCheck(dir, [
      '--env', 'local', '--url', server.url, '--db-url', await embeddedDatabaseUrl(server),
      '--publishable-key', server.anonKey, '--secret-key', serviceRoleKey, '--json', ...tests,
    ]);
    const { passed, failed, total } = report.summary;
    console.log(JSON.stringify({ passed, failed, total }));
    for (const [suite, { tests: results }] of Object.entries(report.suites)) {
      for (const test of results) if (!test.passed) console.log(`FAIL ${suite} / ${test.name}: ${test.error ?? ''}`);
    }
  } finally {
    await server.stop();
  }
}

await main();
