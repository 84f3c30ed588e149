/**
 * One Chromium and one server for the whole e2e run, shared by every suite: each suite
 * acquires them in `before` and releases them in `after`; both close once nobody holds them.
 * Each test gets a fresh browser context. E2E_DIST names another build folder than `dist`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Flags for headless Chromium on this machine: no sandbox as root, no network beyond loopback. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** Shared resources of a run. */
export interface E2E {
  browser: Browser;
  baseUrl: string;
}

let shared: Promise<E2E> | null = null;
let server: ChildProcess | null = null;
let dataDir = '';
let holders = 0;
let closeTimer: ReturnType<typeof setTimeout> | undefined;

/** A TCP port that is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resolves once `url` answers 200; rejects when `child` exits first or 20 s pass. */
export async function waitForServer(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(url).then((response) => response.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('server did not start');
}

async function start(): Promise<E2E> {
  const port = await freePort();
  dataDir = await mkdtemp(join(tmpdir(), 'tessera-e2e-'));
  server = spawn(process.execPath, [join(process.env.E2E_DIST ?? 'dist', 'server.mjs')], {
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://localhost:${port}`;
  const [browser] = await Promise.all([
    chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }),
    waitForServer(`${baseUrl}/index.html`, server),
  ]);
  return { browser, baseUrl };
}

async function stop(): Promise<void> {
  const running = shared;
  shared = null;
  await (await running?.catch(() => null))?.browser.close();
  const child = server;
  server = null;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
}

/** Starts (or reuses) the browser and the server. */
export function acquire(): Promise<E2E> {
  holders++;
  clearTimeout(closeTimer);
  shared ??= start();
  return shared;
}

/** Gives them back; the last holder's release closes them once no suite picks them up again. */
export function release(): void {
  holders--;
  if (holders === 0) closeTimer = setTimeout(() => void stop(), 200);
}

/** A fresh context at 1280x800 and a page in it; console errors and messages are collected. */
export async function openPage(e2e: E2E, setup?: (context: BrowserContext) => Promise<void>): Promise<{ context: BrowserContext; page: Page; logs: string[] }> {
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: e2e.baseUrl });
  await setup?.(context);
  const page = await context.newPage();
  const logs: string[] = [];
  page.on('console', (message) => logs.push(message.text()));
  page.on('pageerror', (error) => logs.push(`pageerror: ${error.message}`));
  return { context, page, logs };
}
