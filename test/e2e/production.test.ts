import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { acquire, openPage, release, type E2E } from '../support/browser.js';
import { createPageWallet, installTestWallet } from '../support/browser-wallet.js';

const test = suite<{ e2e: E2E }>('production serving in the browser');
test.before(async (ctx) => {
  ctx.e2e = await acquire();
});
test.after(() => release());

/** The landing screen's whole first load, on the wire, must stay within this many bytes. */
const LANDING_BUDGET_BYTES = 250_000;

/** Collects every Content-Security-Policy violation the page reports, from its first script on. */
async function recordViolations(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
}

const violations = (page: Page) => page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);

test('the landing screen loads at most 250 KB on the wire, compressed, without the game screen', async ({ e2e }) => {
  const { context, page } = await openPage(e2e, recordViolations);
  const loaded: { url: string; bytes: number; encoding: string | undefined }[] = [];
  page.on('requestfinished', (request) => {
    void Promise.all([request.sizes(), request.response()]).then(([sizes, response]) =>
      loaded.push({ url: request.url(), bytes: sizes.responseBodySize, encoding: response?.headers()['content-encoding'] }),
    );
  });
  await page.goto('/', { waitUntil: 'networkidle' });
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).waitFor();
  const total = loaded.reduce((sum, entry) => sum + entry.bytes, 0);
  assert.ok(total > 0 && total <= LANDING_BUDGET_BYTES, `landing downloads ${total} bytes: ${JSON.stringify(loaded)}`);
  const scripts = loaded.filter((entry) => entry.url.endsWith('.js'));
  assert.ok(scripts.length >= 1 && scripts.every((entry) => entry.encoding === 'br'), 'scripts arrive brotli-compressed');
  assert.not.ok(loaded.some((entry) => entry.url.includes('game-screen')), 'the game screen is not loaded on the landing');
  assert.equal(await violations(page), []);
  await context.close();
});

test('the game runs under the Content-Security-Policy: font, websocket, inline styles, data: audio', async ({ e2e }) => {
  const wallet = createPageWallet();
  const { page, context } = await openPage(e2e, async (c) => {
    await recordViolations(c);
    await installTestWallet(c, wallet);
  });
  await page.goto('/');
  await page.evaluate((address) => localStorage.setItem(`username_${address}`, 'CspTester'), wallet.address);
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  await page.getByRole('button', { name: 'ENTER WORLD' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid=players-online]')?.textContent?.includes('✓'));
  const csp = (await page.request.get('/')).headers()['content-security-policy'];
  assert.ok(csp?.includes("frame-ancestors 'none'"), 'the page is served with its policy');
  assert.ok(await page.evaluate(() => document.fonts.check('12px "Press Start 2P"')), 'the pixel font is loaded');
  const width = await page.locator('.health-fill').first().evaluate((element) => (element as HTMLElement).style.width);
  assert.is(width, '100%', 'React style attributes apply');
  // A voice clip plays from a data: URL, as src/audio/player.ts does; a one-sample WAV stands in for webm.
  const played = await page.evaluate(async () => {
    const wav = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==';
    const audio = new Audio(`data:audio/wav;base64,${wav}`);
    audio.muted = true;
    return audio.play().then(() => 'played', (error: Error) => error.name);
  });
  assert.is(played, 'played');
  assert.equal(await violations(page), []);
  await context.close();
});

test.run();
