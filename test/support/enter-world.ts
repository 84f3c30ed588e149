/** Brings test players into the world, each in its own browser context. */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '../../server/db/cluster.js';
import { startE2EServer } from './browser.js';
import { createPageWallet, installTestWallet, type PageWallet } from './browser-wallet.js';
import { makeDataDir, removeDataDir, type TestServer } from './server.js';

/** A player in the world: its wallet, browser context and page. */
export interface PlayerInWorld {
  wallet: PageWallet;
  context: BrowserContext;
  page: Page;
}

/**
 * On `page` (whose context holds `wallet`): opens the landing, stores `name` for the wallet,
 * connects, enters the world and waits until the live connection is up. `press` is how the two
 * buttons are pressed: a mouse click, or a tap on a touch screen.
 */
export async function enterAs(page: Page, wallet: Pick<PageWallet, 'address'>, name: string, press: 'click' | 'tap' = 'click'): Promise<void> {
  await page.goto('/');
  await page.evaluate(([address, username]) => localStorage.setItem(`username_${address}`, username!), [wallet.address, name]);
  await page.getByRole('button', { name: 'CONNECT PHANTOM' })[press]();
  await page.getByRole('button', { name: 'ENTER WORLD' })[press]();
  await page.waitForFunction(() => document.querySelector('[data-testid=players-online]')?.textContent?.includes('✓'));
}

/**
 * Opens a 1280x800 context on `baseURL` with `wallet` (a new test wallet unless given) and
 * enters the world in it as `name` ({@link enterAs}).
 */
export async function enterWorld(browser: Browser, baseURL: string, name: string, wallet = createPageWallet()): Promise<PlayerInWorld> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL });
  await installTestWallet(context, wallet);
  const page = await context.newPage();
  await enterAs(page, wallet, name);
  return { wallet, context, page };
}

/**
 * Two players with new wallets entered into the world on `baseURL` one after the other, each in
 * its own context ({@link enterWorld}), named `names`; both start at spawn.
 */
export async function twoPlayersInWorld(browser: Browser, baseURL: string, names: readonly [string, string]): Promise<[PlayerInWorld, PlayerInWorld]> {
  const first = await enterWorld(browser, baseURL, names[0]);
  const second = await enterWorld(browser, baseURL, names[1]);
  return [first, second];
}

/** Chromium, a server on a port and DATA_DIR of its own (so it can be restarted on both), and Alice and Bob in its world. */
export interface TwoPlayerWorld {
  browser: Browser;
  server: TestServer;
  port: number;
  dataDir: string;
  alice: PlayerInWorld;
  bob: PlayerInWorld;
}

/**
 * Fills `world` (a suite's context) with a {@link TwoPlayerWorld}: Chromium launched with `args`
 * and the server started side by side, then Alice and Bob entered ({@link twoPlayersInWorld}).
 * What was started is in `world` as soon as it is, so {@link closeTwoPlayerWorld} stops it
 * even when a later step failed.
 */
export async function openTwoPlayerWorld(world: TwoPlayerWorld, args: string[]): Promise<void> {
  world.port = await freePort();
  world.dataDir = await makeDataDir();
  [world.browser, { server: world.server }] = await Promise.all([
    chromium.launch({ executablePath: '/usr/bin/chromium', args }),
    startE2EServer(world.port, world.dataDir),
  ]);
  [world.alice, world.bob] = await twoPlayersInWorld(world.browser, `http://localhost:${world.port}`, ['Alice', 'Bob']);
}

/** Closes what {@link openTwoPlayerWorld} started, whatever part of it did. */
export async function closeTwoPlayerWorld(world: Partial<TwoPlayerWorld>): Promise<void> {
  await world.browser?.close();
  await world.server?.stop();
  if (world.dataDir) await removeDataDir(world.dataDir);
}
