/**
 * A refused private join costs less than the join it refuses: under a role that no read policy
 * of realtime.messages grants anything (the anon key in Tessera), every private join is refused
 * from the catalogue with hosted's reply and no authorisation transaction, until a policy
 * changes that. Counted by `tessera_realtime_join_authorizations_total` on `/metrics`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { joinRegion, rawSocket, replyTo, responseOf, type RawSocket } from '../../support/live.js';
import { enterAtSpawn } from '../../support/rules.js';
import { connectAsOperator } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';

let server: TestServer;
let operator: pg.Client;
let alice: TestPlayer;
let bob: TestPlayer;

/** Hosted's reply to a private join the read policies refuse. */
const refusal = (topic: string) => ({ status: 'error', response: { reason: `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}` } });

/** The read checks of private channels so far, by how they were answered (`database` or `catalogue`). */
async function authorizations(): Promise<{ database: number; catalogue: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const count = (by: string) => Number(new RegExp(`^tessera_realtime_join_authorizations_total\\{answered_by="${by}"[^}]*\\} (\\S+)$`, 'm').exec(text)![1]);
  return { database: count('database'), catalogue: count('catalogue') };
}

/** Sends a private join of `topic` as ref `ref` on `socket`; resolves with its reply's payload. */
async function joinPrivate(socket: RawSocket, ref: string, topic: string): Promise<unknown> {
  socket.send([ref, ref, `realtime:${topic}`, 'phx_join', { config: { private: true } }]);
  return responseOf(await socket.take(replyTo(ref), 10_000));
}

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  [alice, bob] = await Promise.all([signInPlayer(server), signInPlayer(server)]);
  await Promise.all([enterAtSpawn(alice, 'Alice'), enterAtSpawn(bob, 'Bob')]);
});

test.after(async () => {
  for (const p of [alice, bob]) await p.client.removeAllChannels();
  await operator.end();
  await server.stop();
});

test('hostile: 100 anon private joins on 5 sockets (regions, block chunks, other topics) are all refused in hosted\'s words, without one authorisation transaction', async () => {
  const before = await authorizations();
  const sockets = await Promise.all(Array.from({ length: 5 }, () => rawSocket(server)));
  const topics = (n: number) => Array.from({ length: 20 }, (_, i) => [`region:${n}:${i}`, `blocks:${n}:${i}`, `lobby-${n}-${i}`, `anything ${n} ${i}`][i % 4]!);
  const replies = await Promise.all(sockets.map((socket, n) => Promise.all(topics(n).map((topic, i) => joinPrivate(socket, `${i}`, topic)))));
  assert.equal(replies, sockets.map((_, n) => topics(n).map(refusal)));
  assert.equal(await authorizations(), { database: before.database, catalogue: before.catalogue + 100 });
  for (const socket of sockets) socket.ws.close();
});

test('honest: a signed-in player joins its private region, one authorisation transaction a join, and hears another player there', async () => {
  const before = await authorizations();
  const topic = 'region:0:0';
  const listener = await joinRegion(bob.client, topic);
  const sender = await joinRegion(alice.client, topic, true);
  assert.equal([listener.status, sender.status], ['SUBSCRIBED', 'SUBSCRIBED']);
  assert.equal(await authorizations(), { database: before.database + 2, catalogue: before.catalogue });
  assert.is(await sender.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 1, y: 2 } }), 'ok');
  await waitFor(() => listener.heard.length === 1, { message: "Alice's pose" });
  assert.equal(listener.heard, [{ x: 1, y: 2, id: alice.address }]);
  await alice.client.removeChannel(sender.channel);
  await bob.client.removeChannel(listener.channel);
});

test('a policy that grants the anon role a topic lets the next anon join in at once; dropped, the refusals are the catalogue\'s again', async () => {
  const topic = 'anon-notice-board';
  const socket = await rawSocket(server);
  assert.equal(await joinPrivate(socket, '1', topic), refusal(topic));
  await operator.query(`create policy "anon reads the notice board" on realtime.messages for select to anon using ((select realtime.topic()) = '${topic}')`);
  try {
    const before = await authorizations();
    assert.equal(await joinPrivate(socket, '2', topic), { status: 'ok', response: { postgres_changes: [] } });
    assert.equal(await joinPrivate(socket, '3', 'region:0:0'), refusal('region:0:0'));
    assert.equal(await authorizations(), { database: before.database + 2, catalogue: before.catalogue });
  } finally {
    await operator.query(`drop policy "anon reads the notice board" on realtime.messages`);
  }
  const before = await authorizations();
  assert.equal(await joinPrivate(socket, '4', 'other-board'), refusal('other-board'));
  assert.equal(await authorizations(), { database: before.database, catalogue: before.catalogue + 1 });
  socket.ws.close();
});

test.run();
