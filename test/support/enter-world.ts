/** Brings test players into the world, each in its own browser context. */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createPageWallet, installTestWallet, type PageWallet } from './browser-wallet.js';

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
