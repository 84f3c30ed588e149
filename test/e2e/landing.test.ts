import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { acquire, openPage, release, type E2E } from '../support/browser.js';
import { createPageWallet, installTestWallet, type PageWallet } from '../support/browser-wallet.js';

const test = suite<{ e2e: E2E }>('landing');
test.before(async (ctx) => {
  ctx.e2e = await acquire();
});
test.after(() => release());

async function connectedPage(e2e: E2E, wallet: PageWallet = createPageWallet()) {
  const opened = await openPage(e2e, (context) => installTestWallet(context, wallet));
  await opened.page.goto('/');
  await opened.page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  await opened.page.getByText('PLAYER READY').waitFor();
  return { ...opened, wallet };
}

test('shows the title, the Phantom button, the footer badges and the version', async ({ e2e }) => {
  const { context, page } = await openPage(e2e, (c) => installTestWallet(c, createPageWallet()));
  await page.goto('/');
  assert.is(await page.getByRole('heading', { level: 1 }).textContent(), 'TESSERA');
  assert.ok(await page.getByRole('button', { name: /phantom/i }).isVisible());
  for (const badge of ['WALLET REQUIRED', 'WALLET = ID', 'MULTIPLAYER', 'v1.0.0']) {
    assert.ok(await page.getByText(badge, { exact: true }).isVisible(), badge);
  }
  assert.is(await page.evaluate(() => getComputedStyle(document.body).fontFamily), '"Press Start 2P", monospace');
  assert.is(await page.evaluate(async () => (await document.fonts.load('16px "Press Start 2P"')).length), 1, 'the shipped font loads');
  await context.close();
});

test('without a wallet, connect alerts and silent reconnect logs', async ({ e2e }) => {
  const { context, page, logs } = await openPage(e2e);
  await page.goto('/');
  const seen: string[] = [];
  page.on('dialog', (dialog) => {
    seen.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  assert.equal(seen, ['alert: Phantom wallet not found! Please install Phantom wallet.']);
  assert.ok(logs.includes('Wallet not connected'));
  await context.close();
});

test('connecting shows PLAYER READY and the address shortened to 6 + 6 characters', async ({ e2e }) => {
  const { context, page, wallet, logs } = await connectedPage(e2e);
  const short = `${wallet.address.slice(0, 6)}...${wallet.address.slice(-6)}`;
  assert.ok(await page.getByText(short, { exact: true }).isVisible());
  assert.ok(await page.getByRole('button', { name: 'DISCONNECT' }).isVisible());
  assert.ok(logs.includes('Wallet not connected'), 'silent reconnect of an untrusted site fails quietly');
  await context.close();
});

test('name entry: placeholder, 20 characters, CONFIRM needs a trimmed name, no CANCEL without a name', async ({ e2e }) => {
  const { context, page, wallet } = await connectedPage(e2e);
  const input = page.getByPlaceholder('PLAYER_001');
  assert.is(await input.getAttribute('maxlength'), '20');
  const confirm = page.getByRole('button', { name: 'CONFIRM' });
  assert.ok(await confirm.isDisabled());
  assert.is(await page.getByRole('button', { name: 'CANCEL' }).count(), 0);
  await input.fill('    ');
  assert.ok(await confirm.isDisabled());
  await input.pressSequentially('  Builder_Bee_Number_One_Too_Long');
  assert.is(await input.inputValue(), '      Builder_Bee_Nu');
  await input.fill('  Builder Bee  ');
  assert.ok(await confirm.isEnabled());
  await confirm.click();
  // CONFIRM asks the server whether the name is free first.
  await page.getByText('WELCOME BACK').waitFor();
  assert.ok(await page.getByText('Builder Bee', { exact: true }).isVisible());
  assert.is(await page.evaluate((key) => localStorage.getItem(key), `username_${wallet.address}`), 'Builder Bee');
  await context.close();
});

test('CHANGE NAME shows CANCEL, which keeps the old name; CONFIRM stores the new one', async ({ e2e }) => {
  const { context, page, wallet } = await connectedPage(e2e);
  await page.getByPlaceholder('PLAYER_001').fill('First');
  await page.getByRole('button', { name: 'CONFIRM' }).click();
  await page.getByRole('button', { name: 'CHANGE NAME' }).click();
  assert.is(await page.getByPlaceholder('PLAYER_001').inputValue(), 'First');
  await page.getByPlaceholder('PLAYER_001').fill('Second');
  await page.getByRole('button', { name: 'CANCEL' }).click();
  assert.ok(await page.getByText('First', { exact: true }).isVisible());
  await page.getByRole('button', { name: 'CHANGE NAME' }).click();
  await page.getByPlaceholder('PLAYER_001').fill('Second');
  await page.getByRole('button', { name: 'CONFIRM' }).click();
  await page.getByText('Second', { exact: true }).waitFor();
  assert.is(await page.evaluate((key) => localStorage.getItem(key), `username_${wallet.address}`), 'Second');
  await context.close();
});

test('a stored name and appearance are loaded per wallet; reload reconnects silently', async ({ e2e }) => {
  const wallet = createPageWallet();
  const { context, page } = await openPage(e2e, (c) => installTestWallet(c, wallet));
  await page.goto('/');
  await page.evaluate((address) => localStorage.setItem(`username_${address}`, 'Stored Name'), wallet.address);
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  assert.ok(await page.getByText('Stored Name', { exact: true }).isVisible());
  await page.reload();
  await page.getByText('PLAYER READY').waitFor();
  assert.ok(await page.getByText('WELCOME BACK').isVisible());
  const calls = await page.evaluate(() => (window as unknown as { __testWallet: { calls: Record<string, number> } }).__testWallet.calls);
  assert.is(calls.silentConnect, 1);
  assert.is(calls.connect, 0, 'no connect prompt after the reload');
  await context.close();
});

test('disconnect returns to the connect button and forgets the name in memory, not in storage', async ({ e2e }) => {
  const { context, page, wallet } = await connectedPage(e2e);
  await page.getByPlaceholder('PLAYER_001').fill('Leaver');
  await page.getByRole('button', { name: 'CONFIRM' }).click();
  // The name is kept once the server has accepted it: wait until it is stored.
  await page.getByText('PLAYER READY').waitFor();
  await page.waitForFunction((key) => localStorage.getItem(key) === 'Leaver', `username_${wallet.address}`);
  await page.getByRole('button', { name: 'DISCONNECT' }).click();
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).waitFor();
  assert.is(await page.getByText('PLAYER READY').count(), 0);
  assert.is(await page.evaluate((key) => localStorage.getItem(key), `username_${wallet.address}`), 'Leaver');
  await context.close();
});

test('the wallet disconnect event signs the player out of the landing screen', async ({ e2e }) => {
  const { context, page } = await connectedPage(e2e);
  await page.evaluate(() => (window as unknown as { __testWallet: { emit(e: string): void } }).__testWallet.emit('disconnect'));
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).waitFor();
  await context.close();
});

test('unknown paths show the 404 page, log the visit and link back to /', async ({ e2e }) => {
  const { context, page, logs } = await openPage(e2e);
  await page.goto('/no/such/place');
  assert.ok(await page.getByText('404', { exact: true }).isVisible());
  assert.ok(await page.getByText('Oops! Page not found').isVisible());
  assert.ok(logs.some((line) => line.includes('/no/such/place') && line.includes('404')));
  await page.getByRole('link', { name: 'Return to Home' }).click();
  await page.getByRole('heading', { name: 'TESSERA' }).waitFor();
  assert.is(new URL(page.url()).pathname, '/');
  await context.close();
});

test.run();
