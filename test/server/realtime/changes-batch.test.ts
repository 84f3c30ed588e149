/**
 * One batch of changes, many readers: the dispatcher reads a transaction's changes together and
 * checks visibility once per access class (one role, or one role and one set of claims when a
 * policy reads them). Each subscriber must still get exactly the rows its RLS lets it read, in
 * commit order, deletes included: a delete reaches only those whose policies let them read the
 * deleted row.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SupabaseClient } from '@supabase/supabase-js';
import type pg from 'pg';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { connectAsOperator } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';
import { subscribeChannel, userIdOf } from '../../support/live.js';

interface Event {
  type: string;
  id: number;
}

let server: TestServer;
let operator: pg.Client;
let alice: TestPlayer;
let bob: TestPlayer;
let anon: SupabaseClient;

/** Subscribes to every change of public.notes, and to public.note_barrier's inserts (as `BARRIER`); resolves once the join is confirmed. */
async function listen(client: SupabaseClient, name: string): Promise<Event[]> {
  const events: Event[] = [];
  const channel = client
    .channel(name)
    .on('postgres_changes', { event: '*', schema: 'public', table: 'notes' }, (payload) => {
      const row = (payload.eventType === 'DELETE' ? payload.old : payload.new) as { id: number };
      events.push({ type: payload.eventType, id: row.id });
    })
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'note_barrier' }, (payload) => {
      events.push({ type: 'BARRIER', id: (payload.new as { id: number }).id });
    });
  const system: unknown[] = [];
  channel.on('system', {}, (payload: unknown) => system.push(payload));
  await subscribeChannel(channel);
  await waitFor(() => system.length > 0, { timeout: 5000, interval: 10, message: `${name}: the subscription status` });
  assert.equal((system[0] as { message: string }).message, 'Subscribed to PostgreSQL');
  return events;
}

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  // A published table whose read policy depends on the caller's claims: each user reads its own notes.
  await operator.query(`
    create table public.notes (id integer primary key, owner uuid not null, body text not null);
    alter table public.notes enable row level security;
    create policy "own read" on public.notes for select to authenticated using (owner = auth.uid());
    grant select on public.notes to anon, authenticated;
    alter publication supabase_realtime add table public.notes;
    -- Readable by everyone: its row, written last, tells each reader that the batch has been delivered.
    create table public.note_barrier (id integer primary key);
    grant select on public.note_barrier to anon, authenticated;
    alter publication supabase_realtime add table public.note_barrier;`);
  alice = await signInPlayer(server);
  bob = await signInPlayer(server);
  await operator.query(`insert into public.notes (id, owner, body) values (100, $1, 'before'), (101, $2, 'before')`, [await userIdOf(alice), await userIdOf(bob)]);
  anon = createTestClient(server);
});

test.after(async () => {
  for (const client of [alice.client, bob.client, anon]) await client.removeAllChannels();
  await operator.end();
  await server.stop();
});

test('one transaction of changes reaches each reader with exactly its rows, in commit order', async () => {
  const [aliceId, bobId] = [await userIdOf(alice), await userIdOf(bob)];
  const aliceFeed = await listen(alice.client, 'notes-alice');
  // A second channel with the same claims shares alice's visibility check and must see the same.
  const aliceAgain = await listen(alice.client, 'notes-alice-again');
  const bobFeed = await listen(bob.client, 'notes-bob');
  const anonFeed = await listen(anon, 'notes-anon');

  await operator.query('begin');
  await operator.query(
    `insert into public.notes (id, owner, body) select i, case when i % 2 = 1 then $1::uuid else $2::uuid end, 'note ' || i
     from generate_series(1, 8) i`,
    [aliceId, bobId],
  );
  await operator.query(`update public.notes set body = 'edited' where id in (2, 3)`);
  await operator.query('insert into public.notes (id, owner, body) values (9, $1, $2)', [bobId, 'late']);
  // Rows from before the batch: a row inserted and removed before the changes are read is not
  // delivered as an INSERT (visibility is checked by re-reading the row).
  await operator.query('delete from public.notes where id in (100, 101)');
  await operator.query('insert into public.note_barrier (id) values (1)');
  await operator.query('commit');

  const barrier = (events: Event[]) => events.some((e) => e.type === 'BARRIER');
  await waitFor(() => [aliceFeed, aliceAgain, bobFeed, anonFeed].every(barrier), { timeout: 5000, interval: 10, message: 'the barrier at every reader' });

  const aliceWants = [
    { type: 'INSERT', id: 1 }, { type: 'INSERT', id: 3 }, { type: 'INSERT', id: 5 }, { type: 'INSERT', id: 7 },
    { type: 'UPDATE', id: 3 },
    { type: 'DELETE', id: 100 },
    { type: 'BARRIER', id: 1 },
  ];
  assert.equal(aliceFeed, aliceWants);
  assert.equal(aliceAgain, aliceWants);
  assert.equal(bobFeed, [
    { type: 'INSERT', id: 2 }, { type: 'INSERT', id: 4 }, { type: 'INSERT', id: 6 }, { type: 'INSERT', id: 8 },
    { type: 'UPDATE', id: 2 },
    { type: 'INSERT', id: 9 },
    { type: 'DELETE', id: 101 },
    { type: 'BARRIER', id: 1 },
  ]);
  // anon has no read policy: it hears none of the notes' changes, not even a deleted note's key.
  assert.equal(anonFeed, [{ type: 'BARRIER', id: 1 }]);
});

test('a table that leaves the publication is captured no longer', async () => {
  const triggers = async () => (await operator.query(
    `select tgname from pg_trigger where tgrelid = 'public.notes'::regclass and tgname like 'realtime_capture_%' order by tgname`)).rows.map((r) => r.tgname);
  assert.equal(await triggers(), ['realtime_capture_delete', 'realtime_capture_insert', 'realtime_capture_update', 'realtime_capture_updated']);
  await operator.query('alter publication supabase_realtime drop table public.notes');
  await waitFor(async () => (await triggers()).length === 0, { message: 'the capture triggers removed' });
});

test.run();
