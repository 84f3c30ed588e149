/** Brings a fresh test player into the world in its own browser context. */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createTestWallet, installTestWallet, type TestWallet } from './browser-wallet.js';

/** A player in the world: its wallet, browser context and page. */
export interface PlayerInWorld {
  wallet: TestWallet;
  context: BrowserContext;
  page: Page;
}

/**
 * Opens a 1280x800 context on `baseURL` with a new test wallet, stores `name` for it, connects,
 * enters the world and waits until the live connection is up.
 */
export async function enterWorld(browser: Browser, baseURL: string, name: string): Promise<PlayerInWorld> {
  const wallet = createTestWallet();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL });
  await installTestWallet(context, wallet);
  const page = await context.newPage();
  await page.goto('/');
  await page.evaluate(([address, username]) => localStorage.setItem(`username_${address}`, username!), [wallet.address, name]);
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  await page.getByRole('button', { name: 'ENTER WORLD' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid=players-online]')?.textContent?.includes('✓'));
  return { wallet, context, page };
}
