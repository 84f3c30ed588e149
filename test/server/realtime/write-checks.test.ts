/**
 * Write checks of private channels (a first pose on a region, a renewal every few seconds) run in
 * batches over callers: one rolled-back transaction switches role and claims for each check and
 * asks `realtime.may_write`, so each verdict is the one its caller gets alone. Here the batch is
 * run against the test server's real database, then poses show the server using it.
 */
import type pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openPool } from '../../../server/db/pool.js';
import type { Claims, Database } from '../../../server/db/index.js';
import { authorizeWrites, type WriteCheck } from '../../../server/realtime/authorization.js';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { accessToken, claimsText, joinRegion, rawSocket } from '../../support/live.js';
import { metricSamples } from '../../support/metrics.js';
import { enterAtSpawn } from '../../support/rules.js';
import { connectAsOperator, operatorConfig } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';

let server: TestServer;
let operator: pg.Client;
let db: Database;
let alice: TestPlayer;
let bob: TestPlayer;

/** The topic whose insert policy raises (its name cast to an integer). */
const RAISING_TOPIC = 'region:raise';

/** The claims of a player's access token, as the server sets them. */
async function claimsOf(player: TestPlayer): Promise<Claims> {
  return JSON.parse(await claimsText(player)) as Claims;
}

const anon = { role: 'anon' } as Claims;
const service = { role: 'service_role' } as Claims;

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  db = openPool(await operatorConfig(server), 1, () => {});
  [alice, bob] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  // Alice is in the world; Bob signed in but has not entered yet, so no region is his to speak in.
  await enterAtSpawn(alice, 'Alice');
  await operator.query(`create policy "test: raising topic" on realtime.messages as restrictive for insert to authenticated
    with check ((select realtime.topic()) <> '${RAISING_TOPIC}' or (select realtime.topic())::int = 0)`);
});

test.after(async () => {
  await alice.client.removeAllChannels();
  await operator.query(`drop policy "test: raising topic" on realtime.messages`);
  await operator.end();
  await db.close();
  await server.stop();
});

test('checks of five callers in one transaction: each gets its own verdict, and nothing is left written', async () => {
  const [aliceClaims, bobClaims] = await Promise.all([claimsOf(alice), claimsOf(bob)]);
  const checks: WriteCheck[] = [
    { claims: aliceClaims, topic: 'region:0:0', extension: 'broadcast' },
    { claims: bobClaims, topic: 'region:0:0', extension: 'broadcast' },
    { claims: anon, topic: 'region:0:0', extension: 'broadcast' },
    { claims: aliceClaims, topic: 'region:0:0', extension: 'presence' },
    { claims: service, topic: 'region:0:0', extension: 'broadcast' },
    { claims: aliceClaims, topic: 'region:5:-3', extension: 'broadcast' },
  ];
  assert.equal(await authorizeWrites(db, checks), [true, false, false, false, true, true]);
  // Each check alone agrees.
  for (const [i, check] of checks.entries()) assert.equal(await authorizeWrites(db, [check]), [[true, false, false, false, true, true][i]], `check ${i} alone`);
  const { rows } = await operator.query<{ n: number }>(`select count(*)::int as n from realtime.messages where topic like 'region:%' and payload is null`);
  assert.is(rows[0]!.n, 0);
});

test('hostile: a policy that raises fails the whole batch (the server then checks each alone)', async () => {
  const aliceClaims = await claimsOf(alice);
  await authorizeWrites(db, [{ claims: aliceClaims, topic: 'region:0:0', extension: 'broadcast' }, { claims: aliceClaims, topic: RAISING_TOPIC, extension: 'broadcast' }]).then(
    () => assert.unreachable('the batch failed'),
    (error: Error) => assert.match(error.message, 'invalid input syntax for type integer'),
  );
});

test('the first poses of two players are checked by the database once each; both are heard, with no batch run again', async () => {
  await enterAtSpawn(bob, 'Bob');
  const listener = await joinRegion(alice.client, 'region:0:0');
  const metrics = async () => metricSamples(await (await fetch(`${server.url}/metrics`)).text());
  const counts = async () => {
    const samples = await metrics();
    return { checks: samples.get('tessera_realtime_write_checks_total')!, alone: samples.get('tessera_realtime_write_check_transactions_total{run="alone"}')! };
  };
  const before = await counts();
  const sockets = await Promise.all([alice, bob].map(async (player) => ({ socket: await rawSocket(server), token: await accessToken(player) })));
  for (const [i, { socket, token }] of sockets.entries()) {
    socket.send(['1', '1', 'realtime:region:0:0', 'phx_join', { config: { private: true }, access_token: token }]);
    for (let n = 0; n < 3; n++) socket.send(['1', `${n + 2}`, 'realtime:region:0:0', 'broadcast', { type: 'broadcast', event: 'pose', payload: { x: i, y: n } }]);
  }
  await waitFor(() => listener.heard.length === 6, { message: 'both players\' poses' });
  const heard = (address: string) => listener.heard.filter((pose) => pose.id === address).map((pose) => pose.y);
  assert.equal([heard(alice.address), heard(bob.address)], [[0, 1, 2], [0, 1, 2]]);
  const after = await counts();
  assert.equal({ checks: after.checks - before.checks, alone: after.alone - before.alone }, { checks: 2, alone: 0 });
  for (const { socket } of sockets) socket.ws.close();
});

test.run();
