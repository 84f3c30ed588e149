/**
 * public.wallet_address() keeps the caller's wallet for the rest of a transaction, beside the
 * claims it was found for: a transaction that switches claims (the Realtime drain checks each
 * subscriber's policies in turn) gets each caller's own wallet, and a setting written by hand
 * under other claims names nobody.
 */
import type pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectAsOperator } from '../../../support/server.js';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../../support/harness.js';
import { claimsText } from '../../../support/live.js';

let server: TestServer;
let admin: pg.Client;
let alice: TestPlayer;
let bob: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  admin = await connectAsOperator(server);
  [alice, bob] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
});

test.after(async () => {
  await admin.end();
  await server.stop();
});

/** The wallet the function names under `claims`, in the open transaction of `admin`. */
async function walletUnder(claims: string): Promise<string | null> {
  await admin.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [claims]);
  const { rows } = await admin.query<{ wallet: string | null }>('select public.wallet_address() as wallet');
  await admin.query(`select set_config('role', 'postgres', true)`);
  return rows[0]!.wallet;
}

test('claims switched within one transaction each name their own wallet, again and again', async () => {
  const [aliceClaims, bobClaims] = await Promise.all([claimsText(alice), claimsText(bob)]);
  await admin.query('begin');
  try {
    const seen = [];
    for (const claims of [aliceClaims, aliceClaims, bobClaims, aliceClaims, bobClaims]) seen.push(await walletUnder(claims));
    assert.equal(seen, [alice.address, alice.address, bob.address, alice.address, bob.address]);
    // The last one found is kept, beside the claims it was found for.
    const { rows } = await admin.query<{ wallet: string; claims: string }>(`select current_setting('tessera.wallet', true) as wallet, current_setting('tessera.wallet_claims', true) as claims`);
    assert.equal(rows[0], { wallet: bob.address, claims: bobClaims });
  } finally {
    await admin.query('rollback');
  }
});

test("a kept wallet written by hand for other claims is not believed: the caller's own is looked up", async () => {
  const bobClaims = await claimsText(bob);
  await admin.query('begin');
  try {
    await admin.query(`select set_config('tessera.wallet', $1, true), set_config('tessera.wallet_claims', '{"sub":"someone else"}', true)`, [alice.address]);
    assert.is(await walletUnder(bobClaims), bob.address);
  } finally {
    await admin.query('rollback');
  }
});

test('claims of no wallet name none, and nothing is kept for them', async () => {
  await admin.query('begin');
  try {
    assert.is(await walletUnder('{"sub":"00000000-0000-0000-0000-000000000000","role":"authenticated"}'), null);
    const { rows } = await admin.query<{ kept: string | null }>(`select current_setting('tessera.wallet_claims', true) as kept`);
    assert.ok(rows[0]!.kept === null || rows[0]!.kept === '', `nothing kept, got ${rows[0]!.kept}`);
  } finally {
    await admin.query('rollback');
  }
});

test.run();
