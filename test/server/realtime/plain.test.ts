/**
 * Without an application policy the Realtime transport behaves as plain Supabase Realtime: a
 * `region:` topic (private only in Tessera, test/server/game/world/region-channels.test.ts) joins and is
 * broadcast to as a public channel, its broadcasts pass as sent (nothing stamped, any payload),
 * and private channels are authorised by the policies on realtime.messages alone, with no game
 * function in the check. Served in-process over a database with none of the game's migrations, only
 * the realtime.messages table a hosted project has.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadKeys, type TokenKeys } from '../../../server/auth/keys.js';
import { startDatabase, type ServerDatabase } from '../../../server/db/index.js';
import { attachRealtime, type RealtimeServer } from '../../../server/realtime/index.js';
import { createTestClient, makeDataDir, removeDataDir } from '../../support/harness.js';
import { joinChannel, rawSocket, readBroadcast, replyTo, responseOf } from '../../support/live.js';
import { waitFor } from '../../support/wait.js';

let dataDir: string;
let migrations: string;
let db: ServerDatabase;
let keys: TokenKeys;
let http: Server;
let realtime: RealtimeServer;
let site: { url: string; anonKey: string };

/** What a plain Supabase project has of Realtime Authorization before any policy: the schema and realtime.messages. */
const HOSTED_REALTIME_SQL = `
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;
create table realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default now(),
  inserted_at timestamp without time zone not null default now(),
  id uuid not null default gen_random_uuid(),
  binary_payload bytea,
  primary key (id, inserted_at)
);
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;
`;

/** A signed token of a user of `role`, valid for an hour. */
async function tokenOf(role: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return keys.sign({ role, sub: randomUUID(), session_id: randomUUID(), iat: now, exp: now + 3600 });
}

test.before(async () => {
  dataDir = await makeDataDir();
  migrations = await mkdtemp(join(tmpdir(), 'tessera-plain-migrations-'));
  await writeFile(join(migrations, '20250101000000_hosted_realtime.sql'), HOSTED_REALTIME_SQL);
  db = await startDatabase({ dataDir, migrationsDir: migrations });
  keys = await loadKeys(db, dataDir);
  http = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const served = path.startsWith('/realtime/v1/') ? realtime.handleHttp(req, res, path.slice('/realtime/v1'.length)) : Promise.resolve(false);
    void served.then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  realtime = await attachRealtime(http, { db, verifyToken: (token) => keys.verify(token), anonKey: keys.anonKey });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  site = { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, anonKey: keys.anonKey };
});

test.after(async () => {
  await realtime?.close();
  if (http) await new Promise((resolve) => http.close(resolve));
  await db?.close();
  await removeDataDir(dataDir);
  await rm(migrations, { recursive: true, force: true });
});

test('a region topic joins as a public channel, and its broadcasts arrive as sent', async () => {
  const [sender, receiver] = [createTestClient(site), createTestClient(site)];
  const sent = await joinChannel(sender, 'region:0:0', {});
  const heard = await joinChannel(receiver, 'region:0:0', {});
  assert.equal([sent.status, heard.status], ['SUBSCRIBED', 'SUBSCRIBED']);
  await sent.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 1, id: 'not a wallet' } });
  await waitFor(() => heard.heard.length === 1, { message: 'the pose' });
  assert.equal(heard.heard, [{ x: 1, id: 'not a wallet' }]);
  await sender.removeAllChannels();
  await receiver.removeAllChannels();
});

test('a region broadcast whose payload is not a JSON object is delivered, not refused', async () => {
  const socket = await rawSocket(site);
  socket.send(['1', '1', 'realtime:region:0:1', 'phx_join', { config: { broadcast: { self: true, ack: true } } }]);
  assert.is(responseOf(await socket.take(replyTo('1'))).status, 'ok');
  socket.send(['1', '2', 'realtime:region:0:1', 'broadcast', { type: 'broadcast', event: 'pose', payload: [1, 2] }]);
  assert.equal(responseOf(await socket.take(replyTo('2'))), { status: 'ok', response: {} });
  const echoed = (await socket.take((frame) => Buffer.isBuffer(frame))) as Buffer;
  assert.equal(readBroadcast(echoed), { topic: 'realtime:region:0:1', event: 'pose', payload: [1, 2] as never });
  socket.ws.close();
});

test('the REST API broadcasts to a public region topic (202), its payload as sent', async () => {
  const receiver = createTestClient(site);
  const heard = await joinChannel(receiver, 'region:0:2', {});
  assert.is(heard.status, 'SUBSCRIBED');
  const response = await fetch(`${site.url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey: site.anonKey, authorization: `Bearer ${await tokenOf('authenticated')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ topic: 'region:0:2', event: 'pose', payload: { x: 2, id: 'anyone' } }] }),
  });
  assert.is(response.status, 202);
  await waitFor(() => heard.heard.length === 1, { message: 'the REST pose' });
  assert.equal(heard.heard, [{ x: 2, id: 'anyone' }]);
  await receiver.removeAllChannels();
});

test('a private channel is authorised by the policies on realtime.messages alone; its broadcasts are not stamped', async () => {
  const [early, sender, receiver] = [createTestClient(site), createTestClient(site), createTestClient(site)];
  for (const client of [early, sender, receiver]) client.realtime.setAuth(await tokenOf('authenticated'));
  const refused = await joinChannel(early, 'region:5:5', { private: true });
  assert.is(refused.status, 'CHANNEL_ERROR');
  assert.is(refused.reason, 'Unauthorized: You do not have permissions to read from this Channel topic: region:5:5');
  await early.removeAllChannels();
  await db.query(`create policy "plain read" on realtime.messages for select to authenticated using (topic = 'region:5:5')`);
  await db.query(`create policy "plain write" on realtime.messages for insert to authenticated with check (topic = 'region:5:5')`);
  const heard = await joinChannel(receiver, 'region:5:5', { private: true });
  const sent = await joinChannel(sender, 'region:5:5', { private: true, broadcast: { ack: true } });
  assert.equal([heard.status, sent.status], ['SUBSCRIBED', 'SUBSCRIBED']);
  assert.is(await sent.channel.send({ type: 'broadcast', event: 'pose', payload: { x: 5, id: 'as sent' } }), 'ok');
  await waitFor(() => heard.heard.length === 1, { message: 'the private pose' });
  assert.equal(heard.heard, [{ x: 5, id: 'as sent' }]);
  await sender.removeAllChannels();
  await receiver.removeAllChannels();
});

test.run();
