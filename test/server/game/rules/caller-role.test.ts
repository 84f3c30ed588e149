/**
 * game_private.is_player() decides once per transaction and set of claims whether the caller is a
 * player, and the triggers that fire only for players ask it
 * (20250802000000_caller_checked_once.sql): claims switched within a transaction are decided
 * again, a kept answer written by hand for other claims is not believed, and a trigger gated on
 * it fires for a player's write and not for the service role's, in one transaction.
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

test.before(async () => {
  server = await startTestServer();
  admin = await connectAsOperator(server);
  alice = await signInPlayer(server);
});

test.after(async () => {
  await admin.end();
  await server.stop();
});

const SERVICE_CLAIMS = '{"role":"service_role"}';
const ANON_CLAIMS = '{"role":"anon"}';

/** Runs the rest of `admin`'s open transaction as `role` under `claims`. */
async function actAs(role: string, claims: string): Promise<void> {
  await admin.query(`select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`, [role, claims]);
}

/** game_private.is_player() under `claims`, asked as the database owner in the open transaction. */
async function isPlayerUnder(claims: string): Promise<boolean> {
  await admin.query(`select set_config('request.jwt.claims', $1, true)`, [claims]);
  return (await admin.query<{ player: boolean }>('select game_private.is_player() as player')).rows[0]!.player;
}

test('claims switched within one transaction are decided each time; only a player is kept', async () => {
  const aliceClaims = await claimsText(alice);
  await admin.query('begin');
  try {
    const seen = [];
    for (const claims of [aliceClaims, SERVICE_CLAIMS, aliceClaims, ANON_CLAIMS, '', aliceClaims]) seen.push(await isPlayerUnder(claims));
    assert.equal(seen, [true, false, true, false, false, true]);
    const { rows } = await admin.query<{ kept: string }>(`select current_setting('tessera.player_claims', true) as kept`);
    assert.is(rows[0]!.kept, aliceClaims);
  } finally {
    await admin.query('rollback');
  }
});

test('an answer written by hand for other claims is not believed', async () => {
  await admin.query('begin');
  try {
    await admin.query(`select set_config('tessera.player_claims', '{"role":"authenticated","sub":"someone"}', true)`);
    assert.is(await isPlayerUnder(SERVICE_CLAIMS), false);
  } finally {
    await admin.query('rollback');
  }
});

test("a trigger for players only spends a player's rate, and not the service role's, in one transaction", async () => {
  const aliceClaims = await claimsText(alice);
  const upsert = `insert into public.game_players (player_id, player_name, x, y) values ($1, 'Alice', 0, 0)
    on conflict (player_id) do update set x = excluded.x`;
  const bucket = async () => {
    await actAs('postgres', '');
    const { rows } = await admin.query(`select 1 from game_private.rate_buckets where player_id = $1 and kind = 'presence heartbeats'`, [alice.address]);
    return rows.length;
  };
  await admin.query('begin');
  try {
    await actAs('service_role', SERVICE_CLAIMS);
    await admin.query(upsert, [alice.address]);
    assert.is(await bucket(), 0, 'the service role spends no player rate');
    await actAs('authenticated', aliceClaims);
    await admin.query(upsert, [alice.address]);
    assert.is(await bucket(), 1, "the player's write spent the player's rate");
  } finally {
    await admin.query('rollback');
  }
});

test('no trigger prepares auth.role() in its WHEN clause any more: the thirty that tested it ask is_player()', async () => {
  const { rows } = await admin.query<{ asks: number; role: number }>(`
    select count(*) filter (where pg_get_triggerdef(oid) like '%WHEN (%game_private.is_player()%')::int as asks,
           count(*) filter (where pg_get_triggerdef(oid) like '%auth.role()%')::int as role
    from pg_trigger where not tgisinternal`);
  assert.equal(rows[0], { asks: 30, role: 0 });
});

test.run();
