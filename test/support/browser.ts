/**
 * One Chromium and one server for the whole e2e run, shared by every suite: each suite
 * acquires them in `before` and releases them in `after`; both close once nobody holds them.
 * Each test gets a fresh browser context. E2E_DIST names another build folder than `dist`.
 */
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '../../server/db/cluster.js';
import { startServer, type TestServer } from './server.js';

/** Flags for headless Chromium on this machine: no sandbox as root, no network beyond loopback. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** A fake microphone. A page may open it only where its context was granted `microphone`. */
export const FAKE_MICROPHONE_ARGS = ['--use-fake-device-for-media-stream'];

/** Shared resources of a run. */
export interface E2E {
  browser: Browser;
  baseUrl: string;
}

let shared: Promise<E2E> | null = null;
let server: Promise<TestServer> | null = null;
let holders = 0;
let closeTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * The built server of E2E_DIST (`dist` unless set) on a free port with a temporary DATA_DIR.
 * Sign-in is bound to SITE_URL: it is the origin the pages are opened at, `http://localhost:<port>`.
 */
export async function startE2EServer(port?: number, dataDir?: string): Promise<{ server: TestServer; baseUrl: string }> {
  const chosen = port ?? (await freePort());
  const baseUrl = `http://localhost:${chosen}`;
  const server = await startServer({
    dataDir,
    entry: join(process.env.E2E_DIST ?? 'dist', 'server.mjs'),
    env: { PORT: String(chosen), SITE_URL: baseUrl },
  });
  return { server, baseUrl };
}

async function start(): Promise<E2E> {
  const starting = startE2EServer();
  server = starting.then(({ server: started }) => started);
  const [browser, { baseUrl }] = await Promise.all([chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...FAKE_MICROPHONE_ARGS] }), starting]);
  return { browser, baseUrl };
}

async function stop(): Promise<void> {
  const running = shared;
  shared = null;
  await (await running?.catch(() => null))?.browser.close();
  const started = server;
  server = null;
  await (await started?.catch(() => null))?.stop();
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
