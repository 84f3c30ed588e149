import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { acquire, openPage, release, type E2E } from '../support/browser.js';
import { createPageWallet, installTestWallet } from '../support/browser-wallet.js';

const test = suite<{ e2e: E2E }>('game screen');
test.before(async (ctx) => {
  ctx.e2e = await acquire();
});
test.after(() => release());

/** A page in the world: connected, named 'Tester' and the first letters of its wallet (a name is one wallet's), entered. */
async function inWorld(e2e: E2E, permissions: string[] = []) {
  const wallet = createPageWallet();
  const opened = await openPage(e2e, async (c) => {
    await c.grantPermissions(permissions);
    await installTestWallet(c, wallet);
  });
  const { page } = opened;
  await page.goto('/');
  await page.evaluate((address) => localStorage.setItem(`username_${address}`, `Tester${address.slice(0, 6)}`), wallet.address);
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  await page.getByRole('button', { name: 'ENTER WORLD' }).click();
  await page.locator('canvas.game-canvas').waitFor();
  return { ...opened, wallet };
}

const box = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!;
const text = (page: Page, selector: string) => page.locator(selector).first().innerText();

/** Writes atoms the way the engine and the network code do. */
async function setState(page: Page, change: string) {
  await page.evaluate(`(() => { const s = window.__tesseraState; ${change} })()`);
}

test('the world view: a centred 800x600 canvas, overlay, zone, online count and help text', async ({ e2e }) => {
  const { context, page } = await inWorld(e2e);
  const canvas = await box(page, 'canvas.game-canvas');
  assert.equal([canvas.width, canvas.height], [800, 600]);
  const area = await box(page, '.play-area');
  assert.ok(Math.abs(canvas.x + canvas.width / 2 - (area.x + area.width / 2)) <= 1, 'centred in the play area');
  assert.is(await page.locator('canvas.game-canvas').evaluate((c) => getComputedStyle(c).imageRendering), 'pixelated');
  assert.match(await text(page, '[data-testid=position-overlay]'), /X: -?\d+ Y: -?\d+/);
  assert.is(await text(page, '[data-testid=position-overlay] .biome'), 'Spawn');
  const status = await text(page, '[data-testid=player-status]');
  assert.match(status, /Tester/);
  assert.match(status, /LV 1/);
  assert.match(status, /HP 100\/100/);
  assert.match(await text(page, '[data-testid=zone-indicator]'), /^SAFE ZONE\s+No combat allowed$/);
  const zone = await box(page, '[data-testid=zone-indicator]');
  assert.ok(zone.x + zone.width > canvas.x + canvas.width - 20 && zone.y < canvas.y + 20, 'zone indicator top right');
  // The live connection comes up once the wallet session exists; alone, the count is 1.
  await page.waitForFunction(() => document.querySelector('[data-testid=players-online]')?.textContent?.includes('✓ 1 ONLINE'));
  assert.is(await page.locator('[data-testid=reconnect-banner]').count(), 0, 'no banner while online');
  await setState(page, `s.store.set(s.connectionAtom, 'restoring');`);
  assert.match(await text(page, '[data-testid=players-online]'), /✗ 1 ONLINE/);
  assert.equal(await page.locator('[data-testid=reconnect-banner] p').allInnerTexts(), ['RECONNECTING...', 'Your edits are kept and sent once the world is back.']);
  await setState(page, `s.store.set(s.connectionAtom, 'online'); s.store.set(s.hudAtoms.remotePlayers, 2);`);
  assert.match(await text(page, '[data-testid=players-online]'), /✓ 3 ONLINE/);
  assert.is(await page.locator('[data-testid=reconnect-banner]').count(), 0);
  const help = await page.locator('[data-testid=help-text] li').allInnerTexts();
  assert.equal(help, ['WASD/Arrows move', '1-8 hotbar', 'I inventory', 'C customisation', 'M minimap', 'left click place', 'right click remove', 'Space attack', 'hold mouse for voice chat (500 block range)']);
  await context.close();
});

test('walking out of spawn switches to PvP ZONE; the combat warning counts players in range', async ({ e2e }) => {
  const { context, page } = await inWorld(e2e);
  await page.locator('canvas.game-canvas').click({ position: { x: 5, y: 5 }, button: 'middle' });
  await page.keyboard.down('d');
  await page.getByText('PvP ZONE').waitFor({ timeout: 5000 });
  await page.keyboard.up('d');
  assert.match(await text(page, '[data-testid=zone-indicator]'), /^PvP ZONE\s+Combat enabled$/);
  // Tiles 3-8 east of spawn on row 0 are all grassland in the default world (seed 20240601).
  assert.is(await text(page, '[data-testid=position-overlay] .biome'), 'Grassland');
  assert.is(await page.locator('[data-testid=combat-warning]').count(), 0);
  await setState(page, `s.store.set(s.hudAtoms.playersInRange, 2);`);
  assert.match(await text(page, '[data-testid=combat-warning]'), /2 players in combat range/);
  await context.close();
});

test('hotbar: 8 slots, quantities above 1, a click selects and names the tool', async ({ e2e }) => {
  const { context, page } = await inWorld(e2e);
  const slots = page.locator('[data-testid=hotbar] .item-slot');
  assert.is(await slots.count(), 8);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hotbar] .slot-quantity').length > 0);
  const quantities = await page.locator('[data-testid=hotbar] .slot-quantity').allInnerTexts();
  assert.ok(quantities.every((q) => Number(q) > 1));
  assert.is(await text(page, '[data-testid=tool-name]'), 'Stone');
  await slots.nth(2).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hotbar] .item-slot')[2]!.classList.contains('is-selected'));
  assert.is(await text(page, '[data-testid=tool-name]'), 'Brick');
  await context.close();
});

test('I, C and M toggle their panels independently; Escape closes all three; typing does not', async ({ e2e }) => {
  const { context, page } = await inWorld(e2e);
  const inventory = page.getByRole('dialog', { name: 'INVENTORY' });
  const customise = page.getByRole('dialog', { name: 'CUSTOMISE' });
  const minimap = page.getByLabel('Minimap');
  await page.keyboard.press('i');
  assert.ok(await inventory.isVisible());
  await page.keyboard.press('m');
  await page.keyboard.press('c');
  assert.ok((await inventory.isVisible()) && (await customise.isVisible()) && (await minimap.isVisible()));
  await page.keyboard.press('i');
  assert.ok(!(await inventory.isVisible()) && (await customise.isVisible()));
  await page.keyboard.press('Escape');
  assert.equal([await inventory.count(), await customise.count(), await minimap.count()], [0, 0, 0]);
  await page.getByPlaceholder('Type your message...').fill('');
  await page.getByPlaceholder('Type your message...').pressSequentially('icm');
  assert.equal([await inventory.count(), await customise.count(), await minimap.count()], [0, 0, 0]);
  assert.is(await page.getByPlaceholder('Type your message...').inputValue(), 'icm');
  await context.close();
});

test('inventory: INVENTORY, [ESC], 32 slots in 8 columns, hotbar preview, BUILDING BLOCKS with Glass, click to hotbar', async ({ e2e }) => {
  const { context, page } = await inWorld(e2e);
  await page.keyboard.press('i');
  const panel = page.getByRole('dialog', { name: 'INVENTORY' });
  assert.is(await panel.locator('.game-panel-title').innerText(), 'INVENTORY');
  assert.is(await page.locator('[data-testid=inventory-grid] .item-slot').count(), 32);
  const columns = await page.locator('[data-testid=inventory-grid]').evaluate((g) => getComputedStyle(g).gridTemplateColumns.split(' ').length);
  assert.is(columns, 8);
  assert.is(await page.locator('[data-testid=inventory-hotbar] .item-slot').count(), 8);
  assert.is(await page.locator('[data-testid=inventory-hotbar] .item-slot.is-selected').count(), 1);
  assert.ok(await panel.getByText('BUILDING BLOCKS').isVisible());
  const catalogue = await page.locator('[data-testid=block-catalogue]').innerText();
  for (const name of ['Stone', 'Glass', 'Redstone']) assert.ok(catalogue.includes(name), name);
  await page.locator('[data-testid=inventory-grid] .item-slot').nth(10).click();
  await page.waitForFunction(() => document.querySelector('[data-testid=tool-name]')?.textContent === 'Glass');
  assert.match(await page.locator('[data-testid=inventory-hotbar] .item-slot.is-selected .block-icon').getAttribute('class') ?? '', /glass/);
  await panel.getByRole('button', { name: '[ESC]' }).click();
  assert.is(await panel.count(), 0);
  await context.close();
});

test('customisation: live preview, palettes 8/8/12, styles, RESET to defaults, SAVE CHANGES stores JSON and closes', async ({ e2e }) => {
  const { context, page, wallet } = await inWorld(e2e);
  await page.keyboard.press('c');
  const panel = page.getByRole('dialog', { name: 'CUSTOMISE' });
  assert.ok(await page.locator('[data-testid=character-preview]').isVisible());
  const counts = async (name: string) => page.locator(`[data-testid=picker-${name}] .swatch`).count();
  assert.equal([await counts('skin'), await counts('hair'), await counts('shirt'), await counts('pants'), await counts('shoes')], [8, 8, 12, 12, 12]);
  assert.equal(await page.locator('[data-testid=picker-hair-style] button').allInnerTexts(), ['SHORT', 'LONG', 'CURLY', 'BALD']);
  assert.equal(await page.locator('[data-testid=picker-shirt-style] button').allInnerTexts(), ['CASUAL', 'TANK', 'HOODIE', 'FORMAL']);
  const preview = () => page.locator('[data-testid=character-preview]').evaluate((c: HTMLCanvasElement) => c.toDataURL());
  const before = await preview();
  await page.getByRole('button', { name: 'SHIRT #DC143C' }).click();
  await page.getByRole('button', { name: 'BALD' }).click();
  assert.is.not(await preview(), before, 'the preview follows the draft');
  await page.getByRole('button', { name: 'RESET' }).click();
  assert.is(await preview(), before);
  assert.is(await page.getByRole('button', { name: 'SHORT' }).getAttribute('aria-pressed'), 'true');
  await page.getByRole('button', { name: 'SHIRT #228B22' }).click();
  await page.getByRole('button', { name: 'HOODIE' }).click();
  await page.getByRole('button', { name: 'SAVE CHANGES' }).click();
  assert.is(await panel.count(), 0);
  const stored = JSON.parse((await page.evaluate((key) => localStorage.getItem(key), `character_${wallet.address}`))!);
  assert.equal(stored, { skinColor: '#FFDBAC', hairColor: '#8B4513', hairStyle: 'short', shirtColor: '#228B22', shirtStyle: 'hoodie', pantsColor: '#654321', shoeColor: '#000000' });
  await context.close();
});

test('minimap: 200 px square, You and Other Players, Range: 100 blocks, dots fade to 0.3', async ({ e2e }) => {
  const { context, page } = await inWorld(e2e);
  await page.getByRole('button', { name: 'MAP' }).click();
  const map = await box(page, '[data-testid=minimap-canvas]');
  assert.equal([map.width, map.height], [200, 200]);
  const legend = await page.locator('.minimap-legend').innerText();
  assert.match(legend, /You/);
  assert.match(legend, /Other Players/);
  assert.ok(await page.getByText('Range: 100 blocks').isVisible());
  // Opening the map loads positions once; the next refresh is 10 s away.
  await page.waitForTimeout(500);
  await setState(page, `s.store.set(s.minimapPlayersAtom, [
    { id: 'a', name: 'Fresh', x: 320, y: 320, seenAt: Date.now() },
    { id: 'b', name: 'Old', x: -320, y: 320, seenAt: Date.now() - 10 * 60 * 1000 },
  ]);`);
  /** The red channel at the centre of the dot `dx` px right of the map's centre, and of the ground beside it. */
  const red = (dx: number) =>
    page.locator('[data-testid=minimap-canvas]').evaluate((c: HTMLCanvasElement, offset) => {
      const ctx = c.getContext('2d')!;
      return [ctx.getImageData(100 + offset, 120, 1, 1).data[0]!, ctx.getImageData(100 + offset + 6, 120, 1, 1).data[0]!];
    }, dx);
  await page.waitForFunction(() => {
    const c = document.querySelector('[data-testid=minimap-canvas]') as HTMLCanvasElement;
    return c.getContext('2d')!.getImageData(120, 120, 1, 1).data[0] === 0xe4;
  });
  // The fresh dot is drawn at full opacity (#e43b44); the old one at 0.3 over the ground.
  assert.is((await red(20))[0], 0xe4);
  const [oldDot, ground] = await red(-20);
  assert.ok(Math.abs(oldDot! - (0.3 * 0xe4 + 0.7 * ground!)) <= 2, `the old dot is drawn at 0.3 (${oldDot} over ${ground})`);
  await context.close();
});

test('chat panel: 20rem, online header, loading and empty states, input rules, Send', async ({ e2e }) => {
  const { context, page, wallet } = await inWorld(e2e);
  const chat = page.getByLabel('Live chat');
  assert.is((await chat.boundingBox())!.width, 320);
  assert.is(await chat.getAttribute('data-wallet'), wallet.address);
  assert.is(await chat.getAttribute('data-player'), `Tester${wallet.address.slice(0, 6)}`);
  assert.is(await text(page, '[data-testid=chat-online]'), '1 player online');
  await setState(page, `s.store.set(s.chatMessagesAtom, null); s.store.set(s.onlineCountAtom, 4);`);
  await chat.getByText('Loading chat...').waitFor();
  assert.is(await text(page, '[data-testid=chat-online]'), '4 players online');
  await setState(page, `s.store.set(s.chatMessagesAtom, []);`);
  await chat.getByText('No messages yet. Be the first to chat!').waitFor();
  await setState(page, `s.store.set(s.chatMessagesAtom, [{ id: '1', player_id: 'x', player_name: 'Ann', message: 'hello builders', created_at: new Date().toISOString() }]);`);
  await chat.getByText('hello builders').waitFor();
  const input = page.getByPlaceholder('Type your message...');
  assert.is(await input.getAttribute('maxlength'), '200');
  await input.fill('  hi  ');
  await chat.getByRole('button', { name: 'Send' }).click();
  assert.is(await input.inputValue(), '', 'the input clears after sending');
  // The server's text rules, shown before anything is sent; the text stays for editing.
  for (const [bad, reason] of [['gro.elgoog\u202E', 'Messages cannot contain direction controls.'], ['ding\u0007', 'Messages cannot contain control characters.']]) {
    await input.fill(bad!);
    await chat.getByRole('button', { name: 'Send' }).click();
    assert.is(await chat.getByRole('alert').innerText(), reason);
    assert.is(await input.inputValue(), bad);
  }
  await input.fill('fine again');
  assert.is(await chat.getByRole('alert').count(), 0, 'editing clears the reason');
  await context.close();
});

test('voice panel: 12rem, Range: 500 blocks, hold to talk, Audio/Muted and Online/Offline', async ({ e2e }) => {
  const { context, page } = await inWorld(e2e, ['microphone']);
  const voice = page.getByLabel('Voice chat');
  assert.is((await voice.boundingBox())!.height, 192);
  assert.ok(await voice.getByText('Range: 500 blocks').isVisible());
  const talk = voice.getByRole('button', { name: 'Hold to Talk' });
  const b = (await talk.boundingBox())!;
  await page.mouse.move(b.x + 10, b.y + 10);
  await page.mouse.down();
  await voice.getByRole('button', { name: 'Recording...' }).waitFor();
  await page.mouse.up();
  await voice.getByRole('button', { name: 'Hold to Talk' }).waitFor();
  await page.mouse.down();
  await voice.getByRole('button', { name: 'Recording...' }).waitFor();
  await page.mouse.move(b.x - 50, b.y - 50);
  // Leaving the button stops the recording.
  await voice.getByRole('button', { name: 'Hold to Talk' }).waitFor();
  await page.mouse.up();
  await voice.getByRole('button', { name: 'Audio' }).click();
  assert.ok(await voice.getByRole('button', { name: 'Muted' }).isVisible());
  await voice.getByRole('button', { name: 'Online' }).click();
  assert.ok(await voice.getByRole('button', { name: 'Offline' }).isVisible());
  await context.close();
});

test('hold to talk without microphone permission: the Microphone Error toast, and the button is back', async ({ e2e }) => {
  const { context, page } = await inWorld(e2e);
  const voice = page.getByLabel('Voice chat');
  await voice.getByRole('button', { name: 'Hold to Talk' }).dispatchEvent('pointerdown');
  await page.getByText('Could not access microphone. Please check permissions.').waitFor();
  assert.ok(await page.getByText('Microphone Error').isVisible());
  assert.ok(await voice.getByRole('button', { name: 'Hold to Talk' }).isVisible());
  await context.close();
});

test('toasts show title and text; tooltips open after 700 ms and skip the delay within 300 ms', async ({ e2e }) => {
  const { context, page } = await inWorld(e2e);
  await setState(page, `s.showToast({ title: 'Under Attack!', description: 'You took 25 damage!', variant: 'destructive' });`);
  assert.ok(await page.getByText('Under Attack!').isVisible());
  assert.ok(await page.getByText('You took 25 damage!').isVisible());
  const slots = page.locator('[data-testid=hotbar] .item-slot');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=hotbar] .slot-quantity').length > 0);
  // The page's timers run on a paused clock from here: the delays are exact, whatever the machine's load.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1000);
  await slots.nth(0).hover();
  await page.clock.runFor(500);
  assert.is(await page.getByRole('tooltip').count(), 0, 'not yet at 500 ms');
  await page.clock.runFor(350);
  assert.match(await page.getByRole('tooltip').innerText(), /Stone x64/);
  await slots.nth(1).hover();
  await page.clock.runFor(100);
  assert.match(await page.getByRole('tooltip').innerText(), /Wood x32/);
  await context.close();
});

// Last in the suite: its player may still count as online for a while after it leaves.
test('entering the world says what happens: connecting, joining, loading the world, then the view alone', async ({ e2e }) => {
  const wallet = createPageWallet();
  const { context, page } = await openPage(e2e, async (c) => {
    await installTestWallet(c, wallet);
    // Every step the indicator shows, in order, and 'gone' once it leaves.
    await c.addInitScript(() => {
      const phases: string[] = [];
      (window as unknown as { __phases: string[] }).__phases = phases;
      new MutationObserver(() => {
        const phase = document.querySelector('[data-testid=entering-progress]')?.getAttribute('data-phase') ?? 'gone';
        if (phases.at(-1) !== phase) phases.push(phase);
      }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-phase'] });
    });
  });
  await page.goto('/');
  await page.evaluate((address) => localStorage.setItem(`username_${address}`, `Tester${address.slice(0, 6)}`), wallet.address);
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  await page.getByRole('button', { name: 'ENTER WORLD' }).click();
  await page.locator('canvas.game-canvas').waitFor();
  const phases = await page.waitForFunction(() => {
    const seen = (window as unknown as { __phases: string[] }).__phases;
    return seen.length > 1 && seen.at(-1) === 'gone' ? seen : null;
  }, undefined, { timeout: 15_000 }).then((handle) => handle.jsonValue() as Promise<string[]>);
  const seen = phases.slice(phases.findIndex((phase) => phase !== 'gone'));
  const order = ['connecting', 'signing-in', 'joining', 'loading-world', 'gone'];
  assert.ok(seen.includes('joining') && seen.includes('loading-world'), seen.join(' > '));
  assert.equal(seen.map((phase) => order.indexOf(phase)), [...seen.map((phase) => order.indexOf(phase))].sort((a, b) => a - b), `in order: ${seen.join(' > ')}`);
  assert.is(seen.at(-1), 'gone');
  await context.close();
});

test.run();
