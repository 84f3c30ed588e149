/**
 * The installable game: Chromium's own installability checks on the manifest and the service
 * worker, the offline screen when the network is cut and the way back when it returns, and what
 * the worker keeps (never the configuration or the API).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { acquire, CHROMIUM_ARGS, openPage, release, type E2E } from '../support/browser.js';

const test = suite<{ e2e: E2E }>('installable, with an offline screen');
test.before(async (ctx) => {
  ctx.e2e = await acquire();
});
test.after(() => release());

/** Loads the landing and waits until the service worker controls the page (after a reload). */
async function controlled(page: Page): Promise<void> {
  await page.goto('/');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.reload();
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).waitFor();
  assert.ok(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL.endsWith('/sw.js')), 'the worker controls the page after a reload');
}

test('the manifest parses with name, icons, standalone display and colours; Chromium finds the game installable', async ({ e2e }) => {
  // Chromium installs nothing from an incognito profile: this check needs a profile on disk.
  const profile = await mkdtemp(join(tmpdir(), 'tessera-pwa-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, baseURL: e2e.baseUrl });
  const page = context.pages()[0] ?? (await context.newPage());
  await controlled(page);
  const cdp = await context.newCDPSession(page);
  const manifest = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[]; data: string };
  assert.ok(manifest.url.endsWith('/manifest.webmanifest'), manifest.url);
  assert.equal(manifest.errors, []);
  const data = JSON.parse(manifest.data) as Record<string, unknown> & { icons: { src: string; sizes: string; purpose: string }[] };
  assert.equal(
    { name: data.name, short_name: data.short_name, display: data.display, start_url: data.start_url, theme_color: data.theme_color, background_color: data.background_color },
    { name: 'Tessera', short_name: 'Tessera', display: 'standalone', start_url: '/', theme_color: '#10121c', background_color: '#10121c' },
  );
  assert.equal(data.icons.filter((icon) => icon.purpose === 'any').map((icon) => [icon.src, icon.sizes]), [['/icons/icon-192.png', '192x192'], ['/icons/icon-512.png', '512x512']]);
  const installability = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: unknown[] };
  assert.equal(installability.installabilityErrors, []);
  for (const size of [192, 512]) {
    const png = await page.request.get(`/icons/icon-${size}.png`);
    assert.is(png.headers()['content-type'], 'image/png');
    const body = await png.body();
    assert.equal([body.readUInt32BE(16), body.readUInt32BE(20)], [size, size], `icon-${size}.png is ${size} px square`);
  }
  await context.close();
  await rm(profile, { recursive: true, force: true });
});

test('the worker keeps the shell and hashed files, never /config.json or the API', async ({ e2e }) => {
  const { context, page } = await openPage(e2e);
  await controlled(page);
  const kept = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
    return urls;
  });
  for (const path of ['/offline.html', '/offline.css', '/offline.js', '/manifest.webmanifest', '/icons/icon-192.png']) assert.ok(kept.includes(path), `${path} kept`);
  assert.ok(kept.some((path) => /^\/assets\/app-[A-Z0-9]{8}\.js$/.test(path)), 'the hashed entry script is kept');
  assert.equal(kept.filter((path) => /^\/(config\.json|rest|auth|realtime)/.test(path)), []);
  await context.close();
});

test('with the network cut, a reload shows the offline screen; once it is back, the screen returns to the game by itself', async ({ e2e }) => {
  const { context, page, logs } = await openPage(e2e);
  await controlled(page);
  await context.setOffline(true);
  await page.reload();
  await page.getByTestId('offline-screen').waitFor();
  assert.is(await page.getByRole('heading').textContent(), 'OFFLINE');
  assert.match((await page.getByRole('status').textContent()) ?? '', /^Reconnecting\.+$/);
  // The offline screen is drawn in the game's own pixel font.
  assert.ok(await page.evaluate(() => document.fonts.check('12px "Press Start 2P"')), 'pixel font loaded offline');
  await context.setOffline(false);
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).waitFor({ timeout: 10_000 });
  assert.equal(logs.filter((line) => /Content Security Policy/i.test(line)), []);
  await context.close();
});

test('a new build takes over on the next load: its worker replaces the old one and the old cache is gone', async ({ e2e }) => {
  const { context, page } = await openPage(e2e);
  await controlled(page);
  const cacheNames = () => page.evaluate(() => caches.keys());
  const [oldCache] = await cacheNames();
  assert.match(oldCache ?? '', /^tessera-[0-9a-f]{12}$/);
  // A deploy: the served worker names another build. The precompressed copies step aside, so the new text is served.
  const worker = join(process.env.E2E_DIST ?? 'dist', 'public', 'sw.js');
  const original = await readFile(worker, 'utf8');
  await Promise.all(['.br', '.gz'].map((suffix) => rename(worker + suffix, `${worker}${suffix}.aside`)));
  try {
    await writeFile(worker, original.replace(/const BUILD = '([0-9a-f]+)'/, "const BUILD = 'next$1'"));
    await page.reload();
    let next = await cacheNames();
    for (let tries = 0; tries < 150 && !(next.length === 1 && next[0]!.startsWith('tessera-next')); tries++) {
      await page.waitForTimeout(100);
      next = await cacheNames();
    }
    assert.equal(next, [oldCache!.replace('tessera-', 'tessera-next')], 'only the new build\'s cache is left');
    await page.reload();
    await page.getByRole('button', { name: 'CONNECT PHANTOM' }).waitFor();
    // The page and every script it runs are of one build: the scripts it loaded are the ones its HTML names.
    const named = await page.evaluate(() => [...document.querySelectorAll('script[src], link[rel=modulepreload]')].map((e) => new URL((e as HTMLScriptElement).src || (e as HTMLLinkElement).href).pathname));
    const served = await (await page.request.get('/')).text();
    for (const path of named) assert.ok(served.includes(path), `${path} is named by the current page`);
  } finally {
    await writeFile(worker, original);
    await Promise.all(['.br', '.gz'].map((suffix) => rename(`${worker}${suffix}.aside`, worker + suffix)));
    await context.close();
  }
});

test.run();
