/**
 * postgres_changes filters as hosted Realtime reads them, through the real supabase-js client:
 * AND of several conditions of the operators hosted supports (eq, neq, lt, lte, gt, gte, in),
 * NULLs failing every one, and each malformed filter or other operator (like, match, is,
 * `not.`, ...) answered with hosted's error text after the join instead of being misread.
 * The probe table is created by the database operator and published, as an app would.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import type { RealtimeChannel } from '@supabase/supabase-js';
import { connectAsOperator } from '../support/server.js';
import { waitFor } from '../support/wait.js';
import { removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../support/harness.js';
import { subscribeChannel } from '../support/live.js';

let server: TestServer;
let operator: pg.Client;
let reader: TestPlayer;
/** An unfiltered subscription of each test's reader. */
let barrier: Feed;
let channels = 0;

/** The id of the barrier row that {@link insertAndSettle} ends with. */
const BARRIER = 999;

/** What one subscription received: the probe ids in order (the barrier row only for `barrier`), and its system messages. */
interface Feed {
  ids: number[];
  system: { status: string; message: string }[];
  channel: RealtimeChannel;
}

async function subscribe(filter: string): Promise<Feed> {
  const feed: Feed = { ids: [], system: [], channel: reader.client.channel(`filters-${++channels}`) };
  feed.channel
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'filter_probe', filter }, (change) => {
      const id = (change.new as { id: number }).id;
      if (id !== BARRIER || filter === '') feed.ids.push(id);
    })
    .on('system', {}, (message: { status: string; message: string }) => feed.system.push(message));
  await subscribeChannel(feed.channel);
  await waitFor(() => feed.system.length > 0, { timeout: 3000, interval: 10, message: 'the subscription status' });
  return feed;
}

/**
 * Inserts the rows, then a barrier row that an unfiltered subscription on the same
 * socket receives: one socket's changes arrive in commit order, so every earlier row has been
 * delivered or withheld by then.
 */
async function insertAndSettle(rows: [number, number | null, string | null, boolean | null][]): Promise<void> {
  for (const [id, n, label, flag] of [...rows, [BARRIER, null, null, null] as const]) {
    await operator.query('insert into public.filter_probe (id, n, label, flag) values ($1, $2, $3, $4)', [id, n, label, flag]);
  }
  await waitFor(() => barrier.ids.includes(BARRIER), { timeout: 3000, interval: 10, message: 'the barrier row' });
}

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  await operator.query(`
    create table public.filter_probe (id int primary key, n int, label text, flag boolean);
    alter table public.filter_probe enable row level security;
    create policy "probe readable" on public.filter_probe for select to authenticated using (true);
    grant select on public.filter_probe to authenticated;
    alter publication supabase_realtime add table public.filter_probe;`);
});

// Each test reads on a socket of its own, so no test spends another's join budget.
test.before.each(async () => {
  reader = await signInPlayer(server);
  barrier = await subscribe('');
});

test.after.each(async () => {
  await reader.client.removeAllChannels();
  await operator.query('delete from public.filter_probe');
});

test.after(async () => {
  await operator.end();
  await server.stop();
  await removeDataDir(server.dataDir);
});

test('two conditions on one column are both applied (x=gte.a,x=lte.b)', async () => {
  const range = await subscribe('n=gte.10,n=lte.20');
  const orNull = await subscribe('n=gt.0,label=eq.keep');
  await insertAndSettle([
    [1, 9, 'keep', null],
    [2, 10, 'drop', null],
    [3, 20, 'keep', null],
    [4, 21, 'keep', null],
    [5, null, 'keep', null],
  ]);
  assert.equal(range.ids, [2, 3]);
  assert.equal(orNull.ids, [1, 3, 4]);
});

test('neq, lt and in: a NULL fails every operator, as SQL compares it; commas inside quotes or parentheses stay in one condition', async () => {
  const neq = await subscribe('n=neq.5');
  const below = await subscribe('n=lt.7');
  const labels = await subscribe('label=in.(a,c)');
  const quoted = await subscribe('label=eq."a,b",n=in.(1,2)');
  await insertAndSettle([
    [1, 5, 'a', null],
    [2, 6, 'b', null],
    [3, null, 'c', null],
    [4, 7, null, null],
    [5, 1, 'a,b', null],
    [6, 3, 'a,b', null],
  ]);
  assert.equal(neq.ids, [2, 4, 5, 6]);
  assert.equal(below.ids, [1, 2, 5, 6]);
  assert.equal(labels.ids, [1, 3]);
  assert.equal(quoted.ids, [5]);
});

test('malformed filters are answered with hosted\'s error after the join, and deliver nothing', async () => {
  const cases: [string, string][] = [
    ['n=foo.1', 'Error parsing `filter` params: ["foo", "1"]'],
    ['undefined', 'Error parsing `filter` params: ["undefined"]'],
    ['n=gt.1,,n=lt.5', 'Error parsing `filter` params: filter must not contain empty segments (check for extra commas)'],
    ['n=in.1,2', 'Error parsing `filter` params: `in` filter value must be wrapped by parentheses'],
    ['nope=eq.1', 'Error parsing `filter` params: invalid column for filter nope'],
    ['label=like.hel%o', 'Error parsing `filter` params: ["like", "hel%o"]'],
    ['label=ilike.HEL_O', 'Error parsing `filter` params: ["ilike", "HEL_O"]'],
    ['label=match.^(a+)+$', 'Error parsing `filter` params: ["match", "^(a+)+$"]'],
    ['label=imatch.x', 'Error parsing `filter` params: ["imatch", "x"]'],
    ['n=is.null', 'Error parsing `filter` params: ["is", "null"]'],
    ['n=isdistinct.1', 'Error parsing `filter` params: ["isdistinct", "1"]'],
    ['n=not.eq.5', 'Error parsing `filter` params: ["not", "eq.5"]'],
    ['n=eq.ten', 'Error parsing `filter` params: invalid input for int4 column n: "ten"'],
    [Array.from({ length: 17 }, (_, i) => `n=neq.${i}`).join(','), 'Error parsing `filter` params: a filter joins at most 16 conditions'],
  ];
  const feeds: Feed[] = [];
  for (const [filter, message] of cases) {
    const feed = await subscribe(filter);
    assert.equal(feed.system[0], { extension: 'postgres_changes', status: 'error', message, channel: feed.channel.topic.replace(/^realtime:/, '') }, filter);
    feeds.push(feed);
  }
  const control = await subscribe('n=eq.1');
  await insertAndSettle([[1, 1, 'a', true]]);
  assert.equal(control.ids, [1]);
  assert.ok(feeds.every((feed) => feed.ids.length === 0));
});

test('select limits record and columns to the chosen columns plus the primary key; bad selects get hosted\'s errors', async () => {
  const seen: { record: Record<string, unknown> }[] = [];
  const system: { status: string; message: string }[][] = [[], [], [], []];
  const bindings = [
    { event: 'INSERT', schema: 'public', table: 'filter_probe', select: ['label'] },
    { event: 'INSERT', schema: 'public', table: 'filter_probe', select: 'label' },
    { event: 'INSERT', schema: 'public', table: 'filter_probe', select: ['nope'] },
    { event: 'INSERT', schema: 'public', select: ['label'] },
  ];
  for (const [i, binding] of bindings.entries()) {
    const channel = reader.client
      .channel(`select-${i}`)
      .on('postgres_changes', binding as never, (change: { new: Record<string, unknown> }) => seen.push({ record: change.new }))
      .on('system', {}, (message: { status: string; message: string }) => system[i]!.push(message));
    await subscribeChannel(channel);
  }
  await waitFor(() => system.every((messages) => messages.length > 0), { timeout: 3000, interval: 10, message: 'the subscription statuses' });
  assert.equal(system.map((messages) => messages[0]!.message), [
    'Subscribed to PostgreSQL',
    'Error parsing `select` params: expected a list of column name strings, e.g. select: ["col1", "col2"]',
    'invalid column for select nope',
    'Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name.',
  ]);
  await insertAndSettle([[1, 7, 'kept', true]]);
  assert.equal(seen.map((change) => change.record), [{ id: 1, label: 'kept' }, { id: BARRIER, label: null }]);
});

test.run();
