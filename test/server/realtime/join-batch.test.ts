/**
 * A player entering the world joins its private channels at once (9 pose regions, its block
 * regions), back to back on one socket: their read checks run together, one authorisation
 * transaction for a caller's checks of the moment, each verdict the one the check gets alone.
 * Meanwhile the socket's frames on channels already joined are not held up by those joins.
 * Counted by `tessera_realtime_read_check_transactions_total` and
 * `tessera_realtime_join_authorizations_total` on `/metrics`.
 *
 * To hold a check in the database for as long as a test needs, a restrictive policy sleeps on
 * one topic (`region:9:9`): checks sent meanwhile from the same address wait behind it, gathered.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { accessToken, joinRegion, rawSocket, replyTo, responseOf, type RawSocket } from '../../support/live.js';
import { metricSamples } from '../../support/metrics.js';
import { enterAtSpawn } from '../../support/rules.js';
import { connectAsOperator } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';

let server: TestServer;
let operator: pg.Client;
let alice: TestPlayer;
let bob: TestPlayer;

/** The topic whose read check sleeps 1 s in each of its two reads. */
const SLOW_TOPIC = 'region:9:9';
/** The topic whose read check raises (its name cast to an integer). */
const RAISING_TOPIC = 'blocks:raise';

/** Hosted's reply to a private join the read policies refuse (as join-cost.test.ts). */
const refusal = (topic: string) => ({ status: 'error', response: { reason: `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}` } });
const joinedOk = { status: 'ok', response: { postgres_changes: [] } };

/** Read checks answered by the database, and the transactions they ran, by kind. */
async function checkCounts(): Promise<{ checks: number; batches: number; alone: number }> {
  const samples = metricSamples(await (await fetch(`${server.url}/metrics`)).text());
  return {
    checks: samples.get('tessera_realtime_join_authorizations_total{answered_by="database"}')!,
    batches: samples.get('tessera_realtime_read_check_transactions_total{run="batch"}')!,
    alone: samples.get('tessera_realtime_read_check_transactions_total{run="alone"}')!,
  };
}

/** A raw socket that joins with `player`'s token. */
async function playerSocket(player: TestPlayer): Promise<{ socket: RawSocket; join(ref: string, topic: string): void }> {
  const socket = await rawSocket(server);
  const token = await accessToken(player);
  return { socket, join: (ref, topic) => socket.send([ref, ref, `realtime:${topic}`, 'phx_join', { config: { private: true }, access_token: token }]) };
}

/** Waits until a read check of {@link SLOW_TOPIC} sleeps in the database. */
async function slowCheckRunning(): Promise<void> {
  await waitFor(async () => (await operator.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where wait_event = 'PgSleep'`)).rows[0]!.n === 1, {
    message: 'the slow read check sleeping',
  });
}

/** The replies to the joins of `refs`, in order. */
const repliesTo = (socket: RawSocket, refs: string[]) => Promise.all(refs.map(async (ref) => responseOf(await socket.take(replyTo(ref), 15_000))));

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  [alice, bob] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await Promise.all([enterAtSpawn(alice, 'Alice'), enterAtSpawn(bob, 'Bob')]);
  await operator.query(`create policy "test: slow region" on realtime.messages as restrictive for select to authenticated
    using ((select realtime.topic()) <> '${SLOW_TOPIC}' or (select count(*) from pg_sleep(1)) = 1)`);
  await operator.query(`create policy "test: raising topic" on realtime.messages as restrictive for select to authenticated
    using ((select realtime.topic()) <> '${RAISING_TOPIC}' or (select realtime.topic())::int = 0)`);
});

test.after(async () => {
  await bob.client.removeAllChannels();
  await operator.query(`drop policy "test: slow region" on realtime.messages; drop policy "test: raising topic" on realtime.messages`);
  await operator.end();
  await server.stop();
});

/**
 * Alice joins `topics` together on a new socket while a slow check of hers holds her address's
 * place: the replies (the slow join's first, then each topic's in order) and what the joins added
 * to {@link checkCounts}.
 */
async function joinBehindSlowCheck(topics: string[]): Promise<{ replies: unknown[]; added: { checks: number; batches: number; alone: number } }> {
  const { socket, join } = await playerSocket(alice);
  const before = await checkCounts();
  join('slow', SLOW_TOPIC);
  await slowCheckRunning();
  topics.forEach((topic, i) => join(`${i}`, topic));
  const replies = await repliesTo(socket, ['slow', ...topics.map((_, i) => `${i}`)]);
  const after = await checkCounts();
  socket.ws.close();
  return { replies, added: { checks: after.checks - before.checks, batches: after.batches - before.batches, alone: after.alone - before.alone } };
}

test('honest: 13 private joins sent together (9 regions, 3 block regions, 1 topic the policies refuse) get the verdicts of single checks, in one transaction', async () => {
  const topics = [-1, 0, 1].flatMap((x) => [-1, 0, 1].map((y) => `region:${x}:${y}`)).concat(['blocks:0:0', 'blocks:1:0', 'blocks:-1:0', 'lobby']);
  const { replies, added } = await joinBehindSlowCheck(topics);
  assert.equal(replies, [joinedOk, ...topics.slice(0, 12).map(() => joinedOk), refusal('lobby')]);
  assert.equal(added, { checks: 14, batches: 2, alone: 0 });
});

test('a batch holds at most 16 checks: 19 joins gathered behind one run as 2 transactions', async () => {
  const topics = Array.from({ length: 19 }, (_, i) => (i % 2 === 0 ? `region:${i}:0` : `blocks:${i}:0`));
  const { replies, added } = await joinBehindSlowCheck(topics);
  assert.equal(replies, [joinedOk, ...topics.map(() => joinedOk)]);
  assert.equal(added, { checks: 20, batches: 3, alone: 0 });
});

test('hostile: a topic whose policy raises, joined among honest ones, is refused in hosted\'s words; its batch is checked again one join at a time and the others join', async () => {
  const { replies, added } = await joinBehindSlowCheck(['region:0:0', RAISING_TOPIC, 'blocks:0:0', 'lobby']);
  assert.equal(replies, [joinedOk, joinedOk, refusal(RAISING_TOPIC), joinedOk, refusal('lobby')]);
  assert.equal(added, { checks: 5, batches: 2, alone: 4 });
  await waitFor(() => server.output().includes(`read policies of ${RAISING_TOPIC} failed: invalid input syntax for type integer`), { message: 'the log line' });
});

test('a pose on a joined region is heard while a join on the same socket waits for its check; a pose sent on the joining topic before its reply is handled once joined', async () => {
  const near = await joinRegion(bob.client, 'region:0:0');
  const far = await joinRegion(bob.client, SLOW_TOPIC);
  const { socket, join } = await playerSocket(alice);
  join('1', 'region:0:0');
  assert.equal(responseOf(await socket.take(replyTo('1'))), joinedOk);
  // The first pose waits for its write check; the next reuse its verdict.
  socket.send(['1', '2', 'realtime:region:0:0', 'broadcast', { type: 'broadcast', event: 'pose', payload: { x: 0, y: 0 } }]);
  await waitFor(() => near.heard.length === 1, { message: 'the first pose' });
  join('2', SLOW_TOPIC);
  await slowCheckRunning();
  socket.send(['1', '3', 'realtime:region:0:0', 'broadcast', { type: 'broadcast', event: 'pose', payload: { x: 1, y: 2 } }]);
  socket.send(['2', '4', `realtime:${SLOW_TOPIC}`, 'broadcast', { type: 'broadcast', event: 'pose', payload: { x: 3, y: 4 } }]);
  await waitFor(() => near.heard.length === 2, { message: 'the pose on the joined region' });
  assert.equal(near.heard, [{ x: 0, y: 0, id: alice.address }, { x: 1, y: 2, id: alice.address }]);
  assert.is(socket.frames.some(replyTo('2')), false, 'the slow join is still under way');
  assert.equal(responseOf(await socket.take(replyTo('2'), 15_000)), joinedOk);
  await waitFor(() => far.heard.length === 1, { message: 'the pose sent before the join reply' });
  assert.equal(far.heard, [{ x: 3, y: 4, id: alice.address }]);
  assert.is(socket.frames.some((frame) => Array.isArray(frame) && frame[3] === 'phx_reply'), false, 'no error reply to either pose');
  socket.ws.close();
});

test.run();
