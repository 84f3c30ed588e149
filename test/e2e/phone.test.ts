/**
 * The touch layout in real Chromium with mobile emulation and touch events, at 390x844
 * (portrait) and 844x390 (landscape): walking with the D-pad, tap to place, long press to
 * remove, the attack button, chat with the on-screen keyboard, every panel opening and closing,
 * and no sideways scrolling. An AudioContext spy counts sound effects per action, before the
 * first gesture and when muted. A second wallet announced through the Wallet Standard signs in.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { enterAs, enterWorld } from '../support/enter-world.js';
import { acquire, release, type E2E } from '../support/browser.js';
import { createPageWallet, installStandardWallet, installTestWallet } from '../support/browser-wallet.js';
import { landTileRightOf, tileInCanvas, tilePoint } from '../support/canvas-points.js';

const test = suite<{ e2e: E2E }>('phone');
test.before(async (ctx) => {
  ctx.e2e = await acquire();
});
test.after(() => release());

/** Counts AudioContexts made and effect sources started (each effect starts exactly one source). */
const SOUND_SPY = `(() => {
  const spy = (window.__sound = { contexts: 0, starts: 0 });
  const Original = window.AudioContext;
  window.AudioContext = class extends Original { constructor(...args) { super(...args); spy.contexts++; } };
  for (const Node of [OscillatorNode, AudioBufferSourceNode]) {
    const start = Node.prototype.start;
    Node.prototype.start = function (...args) { spy.starts++; return start.apply(this, args); };
  }
})();`;

interface Phone {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  address: string;
}

async function openPhone(e2e: E2E, width: number, height: number, name: string): Promise<Phone> {
  const wallet = createPageWallet();
  const context = await e2e.browser.newContext({ viewport: { width, height }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, baseURL: e2e.baseUrl });
  await installTestWallet(context, wallet);
  await context.addInitScript({ content: SOUND_SPY });
  const page = await context.newPage();
  await enterAs(page, wallet, name, 'tap');
  return { context, page, cdp: await context.newCDPSession(page), address: wallet.address };
}

const sound = (page: Page) => page.evaluate(() => (window as unknown as { __sound: { contexts: number; starts: number } }).__sound);
const me = (page: Page) => page.evaluate(() => window.__tessera!.localPlayer()!);

/** Puts a finger down at `point` until the returned function lifts it. */
async function touchDown(phone: Phone, point: { x: number; y: number }): Promise<() => Promise<void>> {
  await phone.cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: point.x, y: point.y }] });
  return async () => {
    await phone.cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  };
}

async function centreOf(page: Page, label: string): Promise<{ x: number; y: number }> {
  const box = (await page.getByRole('button', { name: label, exact: true }).boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function noSidewaysScroll(page: Page): Promise<void> {
  const [scrollWidth, viewWidth, scrolledX] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth, window.scrollX]);
  assert.ok(scrollWidth! <= viewWidth!, `page is ${scrollWidth} px wide in a ${viewWidth} px view`);
  assert.is(scrolledX, 0);
}

/** Whether `box` lies inside the viewport. */
async function fits(page: Page, box: { x: number; y: number; width: number; height: number } | null): Promise<boolean> {
  const { width, height } = page.viewportSize()!;
  return !!box && box.x >= 0 && box.y >= 0 && box.x + box.width <= width + 0.5 && box.y + box.height <= height + 0.5;
}

for (const [width, height] of [[390, 844], [844, 390]] as const) {
  test(`${width}x${height}: walk, place, remove, attack, chat and every panel, by touch only`, async ({ e2e }) => {
    const phone = await openPhone(e2e, width, height, `Phone${width}`);
    const { page } = phone;
    assert.equal(await page.evaluate(() => [document.querySelector('canvas')!.width, document.querySelector('canvas')!.height]), [width, height]);
    await noSidewaysScroll(page);
    assert.equal(await sound(page), { contexts: 0, starts: 0 }, 'no sound before the first tap');

    // Walk right with the D-pad until past tile 4; footsteps sound while walking.
    const lift = await touchDown(phone, await centreOf(page, 'Move right'));
    await page.waitForFunction(() => window.__tessera!.localPlayer()!.x > 4 * 32, undefined, { polling: 50 });
    await lift();
    await page.waitForFunction(() => {
      const x = window.__tessera!.localPlayer()!.x;
      return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(window.__tessera!.localPlayer()!.x === x))));
    });
    const walked = await sound(page);
    assert.is(walked.contexts, 1, 'the first tap made the AudioContext');
    assert.ok(walked.starts >= 1, 'footsteps while walking');

    // Tap a land tile to place the selected block (stone): one effect.
    const p = await me(page);
    const tileY = Math.floor(p.y / 32);
    const tileX = landTileRightOf(Math.floor(p.x / 32), tileY);
    const target = await tilePoint(page, tileX, tileY);
    await page.touchscreen.tap(target.x, target.y);
    await page.waitForFunction(([x, y]) => window.__tessera!.tileAt(x!, y!) === 'stone', [tileX, tileY]);
    assert.is((await sound(page)).starts, walked.starts + 1, 'one place effect');

    // A long press removes it again: one break effect.
    const release = await touchDown(phone, target);
    await page.waitForFunction(([x, y]) => window.__tessera!.tileAt(x!, y!) === null, [tileX, tileY]);
    await release();
    assert.is((await sound(page)).starts, walked.starts + 2, 'one break effect');
    assert.is(await page.evaluate(([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), null, 'lifting after a long press places nothing');

    // The attack button swings the sword: one swing effect.
    await page.getByRole('button', { name: 'Attack' }).tap();
    await page.waitForFunction((n) => (window as unknown as { __sound: { starts: number } }).__sound.starts === n, walked.starts + 3);

    // The hotbar is tappable.
    await page.getByRole('button', { name: 'Hotbar slot 2' }).tap();
    await page.getByTestId('tool-name').getByText('Wood').waitFor();

    // Panels open, fit the screen, and close.
    for (const [button, dialog] of [['BAG', 'INVENTORY'], ['STYLE', 'CUSTOMISE']] as const) {
      await page.getByRole('button', { name: button, exact: true }).tap();
      const panel = page.getByRole('dialog').first();
      await panel.waitFor();
      assert.ok(await fits(page, await panel.boundingBox()), `${dialog} fits`);
      await noSidewaysScroll(page);
      await panel.getByRole('button', { name: '[ESC]' }).tap();
      assert.is(await page.getByRole('dialog').count(), 0, `${dialog} closed`);
    }
    await page.getByRole('button', { name: 'MAP', exact: true }).tap();
    assert.ok(await fits(page, await page.getByRole('region', { name: 'Minimap' }).boundingBox()), 'minimap fits');
    await page.getByRole('button', { name: 'MAP', exact: true }).tap();
    assert.is(await page.getByRole('region', { name: 'Minimap' }).count(), 0);

    await page.getByRole('button', { name: 'VOICE', exact: true }).tap();
    const voice = page.getByRole('region', { name: 'Voice chat' });
    assert.ok(await fits(page, await voice.boundingBox()), 'voice panel fits');
    await voice.getByRole('button', { name: 'Hold to Talk' }).waitFor();
    await page.getByRole('button', { name: 'Close voice chat' }).tap();
    assert.is(await voice.count(), 0);

    // Chat: the input takes focus and text without moving the view.
    await page.getByRole('button', { name: 'CHAT', exact: true }).tap();
    const chat = page.getByRole('region', { name: 'Live chat' });
    assert.ok(await fits(page, await chat.boundingBox()), 'chat fits');
    await chat.getByPlaceholder('Type your message...').tap();
    await page.keyboard.type(`hello at ${width}`);
    await chat.getByRole('button', { name: 'Send' }).tap();
    await chat.getByText(`hello at ${width}`).waitFor();
    assert.equal(await page.evaluate(() => [scrollX, scrollY, visualViewport!.offsetTop, visualViewport!.scale]), [0, 0, 0, 1]);
    await page.getByRole('button', { name: 'Close chat' }).tap();
    assert.is(await chat.count(), 0);
    await noSidewaysScroll(page);
    await phone.context.close();
  });
}

test('sound: silent before the first gesture and when muted; what others do nearby is heard', async ({ e2e }) => {
  const phone = await openPhone(e2e, 390, 844, 'Listener');
  const bob = await enterWorld(e2e.browser, e2e.baseUrl, 'Builder');
  const tileX = landTileRightOf(0, 0);
  const bobClicks = async (button: 'left' | 'right') => {
    await bob.page.locator('canvas.game-canvas').click({ position: await tileInCanvas(bob.page, tileX, 0), button });
  };
  const heard = (block: string | null) => phone.page.waitForFunction(([x, type]) => window.__tessera!.tileAt(x as number, 0) === type, [tileX, block] as const);

  await bobClicks('left');
  await heard('stone');
  assert.equal(await sound(phone.page), { contexts: 0, starts: 0 }, 'nothing before the first tap');

  await phone.page.getByRole('button', { name: 'Attack' }).tap();
  await phone.page.waitForFunction(() => (window as unknown as { __sound: { starts: number } }).__sound.starts === 1);
  await bobClicks('right');
  await heard(null);
  assert.equal(await sound(phone.page), { contexts: 1, starts: 2 }, 'the swing, then Bob breaking a block nearby');

  await phone.page.getByRole('button', { name: 'VOICE', exact: true }).tap();
  await phone.page.getByRole('button', { name: 'Mute sound effects' }).tap();
  await phone.page.getByRole('button', { name: 'Close voice chat' }).tap();
  assert.equal(JSON.parse((await phone.page.evaluate(() => localStorage.getItem('tessera_sound')))!), { volume: 0.7, muted: true });
  await bobClicks('left');
  await heard('stone');
  const own = await tilePoint(phone.page, tileX, 1);
  await phone.page.touchscreen.tap(own.x, own.y);
  await phone.page.waitForFunction(([x]) => window.__tessera!.tileAt(x!, 1) === 'stone', [tileX]);
  assert.equal(await sound(phone.page), { contexts: 1, starts: 2 }, 'muted: nothing more');
  await phone.context.close();
  await bob.context.close();
});

test('a wallet announced through the Wallet Standard is offered and signs in', async ({ e2e }) => {
  const wallet = createPageWallet();
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: e2e.baseUrl });
  await installStandardWallet(context, wallet, 'Solflare');
  const page = await context.newPage();
  await page.goto('/');
  // Phantom stays the labelled default; the announced wallet is offered beside it.
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).waitFor();
  await page.getByRole('button', { name: 'CONNECT SOLFLARE' }).click();
  await page.getByText('PLAYER READY').waitFor();
  await page.getByText(`${wallet.address.slice(0, 6)}...${wallet.address.slice(-6)}`).waitFor();
  await page.waitForFunction(() => Object.keys(localStorage).some((key) => key.startsWith('sb-') && key.endsWith('-auth-token')));
  const calls = await page.evaluate(() => (window as unknown as { __standardWallet: { calls: Record<string, number> } }).__standardWallet.calls);
  assert.is(calls.signIn + calls.signMessage, 1, 'one signature');
  await context.close();
});

test('a phone without any wallet: the SPEC alert, and a link into Phantom\'s in-app browser', async ({ e2e }) => {
  const context = await e2e.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, baseURL: e2e.baseUrl });
  const page = await context.newPage();
  await page.goto('/');
  const link = page.getByRole('link', { name: 'OPEN IN PHANTOM APP' });
  const href = `${e2e.baseUrl}/`;
  assert.is(await link.getAttribute('href'), `https://phantom.app/ul/browse/${encodeURIComponent(href)}?ref=${encodeURIComponent(e2e.baseUrl)}`);
  const alerts: string[] = [];
  page.on('dialog', (dialog) => {
    alerts.push(dialog.message());
    void dialog.dismiss();
  });
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).tap();
  assert.equal(alerts, ['Phantom wallet not found! Please install Phantom wallet.']);
  await noSidewaysScroll(page);
  await context.close();
});

test.run();
