/**
 * postgres_changes filters as upstream Realtime reads them, through the real supabase-js client
 * and its `postgresChangesFilter` builder: every operator (eq, neq, lt, lte, gt, gte, in, like,
 * ilike, match, imatch, is, isdistinct), each also negated with `not.`, joined by AND; NULLs
 * failing every operator but `is` and `isdistinct`; each malformed filter answered with
 * upstream's error text after the join. And the bounds REST keeps on the same operators: no
 * pattern on a large column (voice clips' audio), no pattern over 100 characters or list over
 * 100 values, and no filter that reads a column the subscriber may not read.
 * The probe tables are created by the database operator and published, as an app would.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { postgresChangesFilter, type RealtimeChannel } from '@supabase/supabase-js';
import { connectAsOperator } from '../../support/server.js';
import { waitFor } from '../../support/wait.js';
import { removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { subscribeChannel } from '../../support/live.js';

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

async function subscribe(filter: string, table = 'filter_probe'): Promise<Feed> {
  const feed: Feed = { ids: [], system: [], channel: reader.client.channel(`filters-${++channels}`) };
  feed.channel
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table, filter }, (change) => {
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
    alter publication supabase_realtime add table public.filter_probe;
    -- Without row-level security, a delete carries its whole old row (replica identity full): filters on any column match it.
    create table public.plain_probe (id int primary key, n int, label text);
    alter table public.plain_probe replica identity full;
    grant select on public.plain_probe to authenticated;
    alter publication supabase_realtime add table public.plain_probe;
    -- A column the readers may not select.
    create table public.secret_probe (id int primary key, label text, secret text);
    grant select (id, label) on public.secret_probe to authenticated;
    alter publication supabase_realtime add table public.secret_probe;`);
});

// Each test reads on a socket of its own, so no test spends another's join budget.
test.before.each(async () => {
  reader = await signInPlayer(server);
  barrier = await subscribe('');
});

test.after.each(async () => {
  await reader.client.removeAllChannels();
  await operator.query('delete from public.filter_probe; delete from public.plain_probe; delete from public.secret_probe');
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
    ['n=not.foo.5', 'Error parsing `filter` params: ["foo", "5"]'],
    ['n=not', 'Error parsing `filter` params: ["not"]'],
    ['label=is.maybe', 'Error parsing `filter` params: invalid value for is filter: must be null, true, false, or unknown'],
    ['n=is.true', 'Error parsing `filter` params: is true filter requires a boolean column, got integer'],
    ['n=like.1%', 'Error parsing `filter` params: operator like requires a text-compatible column type, got integer'],
    ['label=match.(a', 'Error parsing `filter` params: invalid regular expression for match filter: invalid regular expression: parentheses () not balanced'],
    ['label=imatch.(a)\\1', 'Error parsing `filter` params: invalid regular expression for imatch filter: back references are not supported in filters'],
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

/** Each operator case: its filter on `label`, a label it keeps and one it drops. */
const OPERATOR_CASES: [string, (f: ReturnType<typeof postgresChangesFilter>) => unknown, string | null, string | null][] = [
  ['eq', (f) => f.eq('label', 'hello'), 'hello', 'other'],
  ['neq', (f) => f.neq('label', 'other'), 'hello', 'other'],
  ['lt', (f) => f.lt('label', 'm'), 'a', 'z'],
  ['lte', (f) => f.lte('label', 'm'), 'm', 'n'],
  ['gt', (f) => f.gt('label', 'a'), 'z', 'a'],
  ['gte', (f) => f.gte('label', 'z'), 'z', 'y'],
  ['in', (f) => f.in('label', ['hello', 'a,b']), 'a,b', 'a'],
  ['like', (f) => f.like('label', 'hel%'), 'hello', 'xhello'],
  ['ilike', (f) => f.ilike('label', 'HEL%o'), 'hello', 'help'],
  ['match', (f) => f.match('label', '^h(el)+o$'), 'helelo', 'hello!'],
  ['imatch', (f) => f.imatch('label', '^HEL'), 'hello', 'shell'],
  ['is', (f) => f.is('label', null), null, 'x'],
  ['isdistinct', (f) => f.isDistinct('label', 'other'), null, 'other'],
  ['not.eq', (f) => f.not('label', 'eq', 'skip'), 'hello', 'skip'],
  ['not.like', (f) => f.not('label', 'like', 'sk%'), 'hello', 'skip'],
  ['not.is', (f) => f.not('label', 'is', null), 'hello', null],
  ['not.in', (f) => f.not('label', 'in', ['skip', 'drop']), 'hello', 'drop'],
];

test('each operator, written by postgresChangesFilter, delivers its rows\' inserts, updates and deletes and no others', async () => {
  const events: string[][] = OPERATOR_CASES.map(() => []);
  const system: string[] = [];
  const channel = reader.client.channel(`operators-${++channels}`);
  OPERATOR_CASES.forEach(([, build], i) => {
    // Each case sees its own two rows only (ids 100+i and 200+i): AND with an in list.
    const filter = String(build(postgresChangesFilter().in('id', [100 + i, 200 + i])));
    channel.on('postgres_changes', { event: '*', schema: 'public', table: 'plain_probe', filter }, (change) => {
      const row = (change.eventType === 'DELETE' ? change.old : change.new) as { id: number };
      events[i]!.push(`${change.eventType} ${row.id}`);
    });
  });
  channel.on('system', {}, (message: { message: string }) => system.push(message.message));
  await subscribeChannel(channel);
  await waitFor(() => system.length > 0, { timeout: 3000, interval: 10, message: 'the subscription status' });
  assert.equal(system, ['Subscribed to PostgreSQL']);
  for (const [i, [, , kept, dropped]] of OPERATOR_CASES.entries()) {
    await operator.query('insert into public.plain_probe (id, n, label) values ($1, 0, $2), ($3, 0, $4)', [100 + i, kept, 200 + i, dropped]);
  }
  // Each step is awaited: a row deleted before its insert is read from the change log is sent as its delete only.
  const arrived = (n: number) => () => events.every((seen) => seen.length >= n);
  await waitFor(arrived(1), { timeout: 3000, interval: 10, message: 'the inserts' });
  await operator.query('update public.plain_probe set n = 1');
  await waitFor(arrived(2), { timeout: 3000, interval: 10, message: 'the updates' });
  await operator.query('delete from public.plain_probe');
  await insertAndSettle([]);
  assert.equal(
    events,
    OPERATOR_CASES.map((_, i) => [`INSERT ${100 + i}`, `UPDATE ${100 + i}`, `DELETE ${100 + i}`]),
  );
});

test('patterns on voice clips\' audio, patterns over 100 characters and lists over 100 values are refused; eq on the audio is served', async () => {
  const large = 'is allowed on text columns of at most 1000 characters; audio_data holds up to 1000000';
  const cases: [string, string][] = [
    ['audio_data=like.*A*A*A*A*B', `Error parsing \`filter\` params: Pattern filter on a large column: game_voice_messages.audio_data (like ${large})`],
    ['audio_data=ilike.%a%', `Error parsing \`filter\` params: Pattern filter on a large column: game_voice_messages.audio_data (ilike ${large})`],
    ['audio_data=match.^(A|AA)+$', `Error parsing \`filter\` params: Pattern filter on a large column: game_voice_messages.audio_data (match ${large})`],
    ['audio_data=not.imatch.B', `Error parsing \`filter\` params: Pattern filter on a large column: game_voice_messages.audio_data (imatch ${large})`],
    ['audio_data=in.(AAAA,BBBB)', `Error parsing \`filter\` params: Filter on a large column: game_voice_messages.audio_data (in ${large})`],
    ['audio_data=gt.A', `Error parsing \`filter\` params: Filter on a large column: game_voice_messages.audio_data (gt ${large})`],
    [`player_name=like.${'%a'.repeat(51)}`, 'Error parsing `filter` params: Pattern too long: like patterns have at most 100 characters; this one has 102'],
    [`player_id=in.(${Array.from({ length: 101 }, (_, i) => `w${i}`).join(',')})`, 'Error parsing `filter` params: too many values for `in` filter. Maximum 100'],
    ['audio_data=eq.AAAA', 'Subscribed to PostgreSQL'],
    ['audio_data=not.is.null', 'Subscribed to PostgreSQL'],
  ];
  for (const [filter, message] of cases) {
    const feed = await subscribe(filter, 'game_voice_messages');
    assert.equal(feed.system[0]!.message, message, filter);
  }
});

test('a filter on a column the subscriber may not select never matches; one on a column it may read does', async () => {
  const rows: { feed: string; id: number }[] = [];
  const system: string[] = [];
  const channel = reader.client.channel(`secret-${++channels}`);
  for (const filter of ['secret=eq.s1', 'secret=not.is.null', 'label=eq.l1']) {
    channel.on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'secret_probe', filter }, (change) => {
      rows.push({ feed: filter, id: (change.new as { id: number }).id });
      assert.not.ok('secret' in change.new, 'the unreadable column is not sent');
    });
  }
  channel.on('system', {}, (message: { message: string }) => system.push(message.message));
  await subscribeChannel(channel);
  await waitFor(() => system.length > 0, { timeout: 3000, interval: 10, message: 'the subscription status' });
  await operator.query("insert into public.secret_probe (id, label, secret) values (1, 'l1', 's1'), (2, 'l2', 's2')");
  await insertAndSettle([]);
  assert.equal(rows, [{ feed: 'label=eq.l1', id: 1 }]);
});

test.run();
