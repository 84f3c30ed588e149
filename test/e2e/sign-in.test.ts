import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { acquire, openPage, release, type E2E } from '../support/browser.js';
import { createPageWallet, installTestWallet } from '../support/browser-wallet.js';

const test = suite<{ e2e: E2E }>('sign-in');
test.before(async (ctx) => {
  ctx.e2e = await acquire();
});
test.after(() => release());

type Calls = Record<string, number>;

/** Connects in a fresh context and returns the stored session's access token. */
async function signIn(e2e: E2E, offerSignIn: boolean) {
  const wallet = createPageWallet();
  const { context, page } = await openPage(e2e, (c) => installTestWallet(c, wallet, { signIn: offerSignIn }));
  await page.goto('/');
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  await page.waitForFunction(() => Object.keys(localStorage).some((key) => key.startsWith('sb-') && key.endsWith('-auth-token')));
  const token = await page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => k.startsWith('sb-') && k.endsWith('-auth-token'))!;
    return (JSON.parse(localStorage.getItem(key)!) as { access_token: string }).access_token;
  });
  const calls = await page.evaluate(() => (window as unknown as { __testWallet: { calls: Calls } }).__testWallet.calls);
  return { context, page, wallet, token, calls };
}

async function backendUser(e2e: E2E, token: string): Promise<{ status: number; address: unknown }> {
  const config = (await (await fetch(`${e2e.baseUrl}/config.json`)).json()) as { supabaseAnonKey: string };
  const response = await fetch(`${e2e.baseUrl}/auth/v1/user`, { headers: { apikey: config.supabaseAnonKey, Authorization: `Bearer ${token}` } });
  const user = (await response.json()) as { user_metadata?: { custom_claims?: { address?: unknown } } };
  return { status: response.status, address: user.user_metadata?.custom_claims?.address };
}

test('a wallet with signIn: one signature, and the backend accepts the session', async ({ e2e }) => {
  const { context, wallet, token, calls } = await signIn(e2e, true);
  assert.is(calls.signIn + calls.signMessage, 1);
  assert.equal(await backendUser(e2e, token), { status: 200, address: wallet.address });
  await context.close();
});

test('a wallet with only signMessage ({ signature }): one signature, accepted session', async ({ e2e }) => {
  const { context, wallet, token, calls } = await signIn(e2e, false);
  assert.is(calls.signMessage, 1);
  assert.equal(await backendUser(e2e, token), { status: 200, address: wallet.address });
  await context.close();
});

test('a reload keeps the session without a new signature; disconnect ends the session', async ({ e2e }) => {
  const { context, page, token } = await signIn(e2e, true);
  await page.reload();
  await page.getByText('PLAYER READY').waitFor();
  await page.waitForTimeout(300);
  const calls = await page.evaluate(() => (window as unknown as { __testWallet: { calls: Calls } }).__testWallet.calls);
  assert.is(calls.signIn + calls.signMessage, 0, 'no signature after the reload');
  assert.is((await backendUser(e2e, token)).status, 200);
  const logout = page.waitForResponse((response) => response.url().includes('/auth/v1/logout'));
  await page.getByRole('button', { name: 'DISCONNECT' }).click();
  assert.ok((await logout).ok(), 'the server accepted the sign-out');
  assert.equal(await backendUser(e2e, token), { status: 403, address: undefined }, 'the signed-out session\'s token is refused');
  await page.waitForFunction(() => !Object.keys(localStorage).some((key) => key.startsWith('sb-') && key.endsWith('-auth-token')));
  await context.close();
});

test.run();
