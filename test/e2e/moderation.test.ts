/**
 * Moderation in the browser: a player mutes another from the name menu of a chat line (its lines
 * disappear, the MUTED list shows it), unmutes with /unmute, and reports it; an operator (named
 * in OPERATOR_WALLETS) opens /ops, sees the report with its context, resolves it and bans the
 * reported player, whose presence then leaves the other player's screen, whose land claim the
 * CLAIMS panel lists and no longer lists once the ban (without end) released it, and whose new
 * sign-in shows the ban's reason; a player who is not an
 * operator gets the not-found screen at /ops.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort } from '../../server/db/cluster.js';
import { connectAsOperator, startServer, type TestServer } from '../support/server.js';
import { enterWorld, twoPlayersInWorld, type PlayerInWorld } from '../support/enter-world.js';
import { CHROMIUM_ARGS } from '../support/browser.js';
import { createPageWallet, installTestWallet, type PageWallet } from '../support/browser-wallet.js';
import { worldPointInCanvas } from '../support/canvas-points.js';

interface World {
  browser: Browser;
  server: TestServer;
  baseUrl: string;
  operatorWallet: PageWallet;
  alice: PlayerInWorld;
  bob: PlayerInWorld;
}

const test = suite<World>('moderation');

async function say(page: Page, text: string): Promise<void> {
  await page.getByPlaceholder('Type your message...').fill(text);
  await page.getByPlaceholder('Type your message...').press('Enter');
}

const chatTexts = (page: Page) => page.locator('[data-testid=chat-messages] .chat-text').allTextContents();

test.before(async (world) => {
  const port = await freePort();
  world.baseUrl = `http://localhost:${port}`;
  world.operatorWallet = createPageWallet();
  world.server = await startServer({
    entry: join(process.env.E2E_DIST ?? 'dist', 'server.mjs'),
    env: { PORT: String(port), SITE_URL: world.baseUrl, OPERATOR_WALLETS: world.operatorWallet.address },
  });
  world.browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  [world.alice, world.bob] = await twoPlayersInWorld(world.browser, world.baseUrl, ['Alice', 'Bob']);
});

test.after(async (world) => {
  await world.browser?.close();
  await world.server?.stop();
});

test('a click on Bob on the canvas opens his name menu instead of placing a block', async ({ alice, bob }) => {
  const bobAt = await alice.page.waitForFunction((id) => window.__tessera!.remotePlayers().find((p) => p.id === id) ?? null, bob.wallet.address);
  const them = (await bobAt.jsonValue()) as { x: number; y: number };
  // The view follows Alice: her position is the canvas centre.
  await alice.page.locator('canvas').click({ position: await worldPointInCanvas(alice.page, them.x, them.y) });
  const menu = alice.page.getByRole('menu', { name: 'Bob menu' });
  await menu.waitFor();
  await menu.getByRole('button', { name: 'Close menu' }).click();
  assert.is(await menu.count(), 0);
});

test('Alice mutes Bob from his name in chat, unmutes with /unmute, and reports him', async ({ alice, bob }) => {
  await say(bob.page, 'hello from bob');
  await alice.page.waitForFunction(() => document.querySelector('[data-testid=chat-messages]')?.textContent?.includes('hello from bob'));
  await alice.page.locator('[data-testid=chat-messages]').getByRole('button', { name: 'Bob', exact: true }).click();
  const menu = alice.page.getByRole('menu', { name: 'Bob menu' });
  await menu.getByRole('menuitem', { name: 'Mute' }).click();
  await alice.page.waitForFunction(() => !document.querySelector('[data-testid=chat-messages]')?.textContent?.includes('hello from bob'));
  assert.match(await alice.page.getByTestId('muted-list').textContent() ?? '', 'MUTED (1)');
  // Only Alice stops seeing Bob.
  assert.ok((await chatTexts(bob.page)).includes('hello from bob'));
  await say(bob.page, 'still talking');
  await bob.page.waitForFunction(() => document.querySelector('[data-testid=chat-messages]')?.textContent?.includes('still talking'));
  await alice.page.waitForTimeout(500); // kept: a muted line is hidden on arrival, so nothing on Alice's page marks that it came
  assert.not.ok((await chatTexts(alice.page)).includes('still talking'));

  await say(alice.page, '/unmute Bob');
  await alice.page.waitForFunction(() => document.querySelector('[data-testid=chat-messages]')?.textContent?.includes('still talking'));
  assert.is(await alice.page.getByTestId('muted-list').count(), 0);

  await alice.page.locator('[data-testid=chat-messages]').getByRole('button', { name: 'Bob', exact: true }).first().click();
  await menu.getByRole('menuitem', { name: 'Report' }).click();
  await menu.getByRole('combobox').selectOption('harassment');
  await menu.getByPlaceholder('What happened? (optional)').fill('spams me');
  await menu.getByRole('button', { name: 'Send Report' }).click();
  await alice.page.getByText('Report Sent').waitFor();
});

test('an operator resolves the report at /ops and bans Bob, who leaves Alice\'s screen and whose claim is released', async ({ browser, baseUrl, server, operatorWallet, alice, bob }) => {
  const { context, page } = await enterWorld(browser, baseUrl, 'Moderator', operatorWallet);
  await page.goto('/ops');
  const report = page.getByTestId('ops-report');
  await report.waitFor();
  const text = (await report.textContent()) ?? '';
  assert.match(text, 'Bob');
  assert.match(text, 'harassment');
  assert.match(text, 'spams me');
  assert.match(text, 'Context: 2 chat lines');
  await report.getByRole('button', { name: 'Resolve' }).click();
  await page.getByText('No open reports.').waitFor();

  // Bob's claim east of spawn (the rules of making one are claims.test.ts's), listed and inspected.
  const db = await connectAsOperator(server);
  await db.query(`insert into public.game_claims (owner_id, owner_name, x1, y1, x2, y2) values ($1, 'Bob', 4, -3, 8, 1)`, [bob.wallet.address]);
  await db.end();
  const claims = page.getByRole('region', { name: 'CLAIMS' });
  await claims.getByLabel('Claim owner').fill(bob.wallet.address);
  await claims.getByRole('button', { name: 'List claims' }).click();
  await page.getByTestId('ops-claim').waitFor();
  assert.match((await page.getByTestId('ops-claim').textContent()) ?? '', /^Bob \(\S+\) · 4,-3\.\.8,1 \(5x5\) · 0 trusted · holds · /);
  await claims.getByRole('button', { name: 'Inspect' }).click();
  assert.match((await page.getByTestId('ops-claim-details').textContent()) ?? '', '0 blocks, 0 of them the owner\'s; 0 trusted');

  assert.ok(await alice.page.evaluate((id) => window.__tessera!.remotePlayers().some((p) => p.id === id), bob.wallet.address));
  await page.getByLabel('Wallet to ban').fill(bob.wallet.address);
  await page.getByLabel('Reason').fill('harassment in chat');
  const bannedAt = Date.now();
  await page.getByRole('button', { name: 'Ban', exact: true }).click();
  await alice.page.waitForFunction((id) => !window.__tessera!.remotePlayers().some((p) => p.id === id), bob.wallet.address, { timeout: 2000, polling: 50 });
  assert.ok(Date.now() - bannedAt < 2000);
  await page.getByTestId('ops-ban').first().waitFor();
  assert.match((await page.getByTestId('ops-ban').first().textContent()) ?? '', 'harassment in chat');
  const log = await page.getByTestId('ops-log-entry').allTextContents();
  assert.ok(log.some((entry) => entry.includes(' ban ')));
  assert.ok(log.some((entry) => entry.includes(' resolved ')));
  // The ban has no end: Bob's land is released.
  await claims.getByRole('button', { name: 'List claims' }).click();
  await claims.getByText('No claims.').waitFor();
  await context.close();

  // Bob, signing in afresh, reads why he is refused.
  const again = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: baseUrl });
  await installTestWallet(again, bob.wallet);
  const bobAgain = await again.newPage();
  await bobAgain.goto('/');
  await bobAgain.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  await bobAgain.getByText('This wallet is banned from play: harassment in chat. The ban does not end.').waitFor();
  await again.close();
});

test('a player who is not an operator gets the not-found screen at /ops', async ({ alice }) => {
  await alice.page.goto('/ops');
  await alice.page.getByText('Oops! Page not found').waitFor();
  assert.is(await alice.page.getByTestId('ops-screen').count(), 0);
});

test.run();
