/**
 * Row changes count against their writer's broadcast budget (docs/protocols.md, "Row changes
 * count against the same budget"): on a published table no database rate bounds, one wallet's
 * write of 250 rows reaches a subscriber as 100 changes, the sender's whole second; another
 * wallet's change still arrives, and the writer's broadcasts in that second are refused as if it
 * had sent them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDataDir, signInPlayer, startTestServerAfter, type TestPlayer, type TestServer } from '../../support/harness.js';
import { accessToken, subscribeChannel } from '../../support/live.js';
import { waitFor } from '../../support/wait.js';

/** A published table any signed-in player may fill, with no rate of its own. */
const PROBE = `
create table public.probe_rows (id bigint generated always as identity primary key, writer text not null, n int not null);
alter table public.probe_rows enable row level security;
create policy "signed-in read" on public.probe_rows for select to authenticated using (true);
create policy "signed-in insert" on public.probe_rows for insert to authenticated with check (true);
grant select, insert on public.probe_rows to authenticated;
alter publication supabase_realtime add table public.probe_rows;`;

let server: TestServer;
let flooder: TestPlayer;
let bystander: TestPlayer;
let listener: TestPlayer;

test.before(async () => {
  server = await startTestServerAfter(PROBE);
  [flooder, bystander, listener] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
});

test.after(async () => {
  await listener.client.removeAllChannels();
  await server.stop();
  await removeDataDir(server.dataDir);
});

const rows = (writer: string, count: number) => Array.from({ length: count }, (_, n) => ({ writer, n }));

test("one wallet's 250 rows reach a subscriber as its 100 a second; another wallet's row still arrives", async () => {
  const heard: { writer: string; n: number }[] = [];
  await subscribeChannel(
    listener.client.channel('probe').on('postgres_changes' as never, { event: 'INSERT', schema: 'public', table: 'probe_rows' }, (change: { new: { writer: string; n: number } }) => heard.push(change.new)),
  );
  assert.is((await flooder.client.from('probe_rows').insert(rows('flood', 250))).error, null);
  await waitFor(() => heard.length >= 100, { message: 'the flood' });
  // The writer's budget is spent for this second: a REST broadcast of 100 messages is refused.
  const token = await accessToken(flooder);
  const broadcast = await fetch(`${server.url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: Array.from({ length: 100 }, (_, i) => ({ topic: 'probe-talk', event: 'say', payload: { i } })) }),
  });
  assert.equal({ status: broadcast.status, body: await broadcast.json() }, { status: 429, body: { message: 'You have exceeded your rate limit' } });
  assert.is((await bystander.client.from('probe_rows').insert(rows('calm', 1))).error, null);
  await waitFor(() => heard.some((row) => row.writer === 'calm'), { message: "the bystander's row" });
  const flood = heard.filter((row) => row.writer === 'flood');
  assert.equal(flood.map((row) => row.n), Array.from({ length: 100 }, (_, n) => n), 'the first 100 in commit order');
  await waitFor(() => server.output().includes("realtime: dropped 150 row changes past their writers' message budgets"), { message: 'the log' });
});

test.run();
