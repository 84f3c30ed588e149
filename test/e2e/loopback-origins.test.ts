import { chromium, type Browser } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../support/server.js';
import { CHROMIUM_ARGS } from '../support/browser.js';
import { createPageWallet, installTestWallet } from '../support/browser-wallet.js';

/**
 * A server with no SITE_URL answers on localhost, 127.0.0.1 and [::1]: the page opened at each
 * connects the wallet and signs in there, with no Content-Security-Policy refusal on the way.
 */
const test = suite<{ server: TestServer; browser: Browser }>('loopback origins');
test.before(async (ctx) => {
  [ctx.server, ctx.browser] = await Promise.all([
    startServer({ env: {} }),
    chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }),
  ]);
});
test.after(async (ctx) => {
  await ctx.browser.close();
  await ctx.server.stop();
});

for (const host of ['127.0.0.1', '[::1]', 'localhost']) {
  test(`CONNECT PHANTOM on http://${host}: signed in, REST and the page's origin agree, no CSP refusal`, async ({ server, browser }) => {
    const origin = `http://${host}:${new URL(server.url).port}`;
    const context = await browser.newContext({ baseURL: origin });
    try {
      await installTestWallet(context, createPageWallet());
      const page = await context.newPage();
      const logs: string[] = [];
      page.on('console', (message) => logs.push(message.text()));
      await page.goto('/');
      const config = await page.evaluate(async () => (await (await fetch('/config.json')).json()) as { supabaseUrl: string });
      assert.is(config.supabaseUrl, origin);
      const token = page.waitForResponse((response) => response.url().startsWith(`${origin}/auth/v1/token`));
      await page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
      assert.is((await token).status(), 200);
      await page.getByText('PLAYER READY').waitFor();
      assert.not.ok(logs.some((line) => /Content Security Policy|Refused to connect/i.test(line)), logs.join('\n'));
    } finally {
      await context.close();
    }
  });
}

test.run();
