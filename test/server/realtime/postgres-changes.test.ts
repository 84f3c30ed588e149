import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { enterAtSpawn } from '../../support/rules.js';
import type pg from 'pg';
import { connectAsOperator } from '../../support/server.js';
import { sleep, waitFor } from '../../support/wait.js';
import { awaitDatabaseMarker, subscribeChannel } from '../../support/live.js';

type Row = Record<string, unknown>;
/** A postgres_changes callback payload as realtime-js hands it over. */
interface Change {
  schema: string;
  table: string;
  commit_timestamp: string;
  eventType: string;
  new: Row;
  old: Row;
  errors: unknown;
}
type Binding = { event: '*' | 'INSERT' | 'UPDATE' | 'DELETE'; schema: string; table: string; filter?: string };

let server: TestServer;
let alice: TestPlayer;
let bob: TestPlayer;
let carol: TestPlayer;
/** Sends the database markers that stand before each "nothing else arrived". */
let operator: pg.Client;
let channel = 0;

/** Events received by one subscription, with a way to wait for the next ones. */
interface Feed {
  events: Change[];
  system: Row[];
  /** Resolves with the events once `count` have arrived; rejects after `ms`. */
  next(count: number, ms?: number): Promise<Change[]>;
}

async function subscribe(client: SupabaseClient, bindings: Binding[]): Promise<Feed & { channel: RealtimeChannel }> {
  const events: Change[] = [];
  const system: Row[] = [];
  let ch = client.channel(`rt-test-${++channel}`);
  for (const binding of bindings) ch = ch.on('postgres_changes', binding, (payload) => events.push(payload as unknown as Change));
  ch = ch.on('system', {}, (payload: Row) => system.push(payload));
  await subscribeChannel(ch);
  await waitFor(() => system.length > 0, { timeout: 2000, interval: 10, message: 'the subscription status' });
  return {
    channel: ch,
    events,
    system,
    async next(count, ms = 3000) {
      await waitFor(() => events.length >= count, { timeout: ms, interval: 10, message: `${count} change(s)` });
      return events;
    },
  };
}

test.before(async () => {
  server = await startTestServer();
  operator = await connectAsOperator(server);
  alice = await signInPlayer(server);
  bob = await signInPlayer(server);
  carol = await signInPlayer(server);
  // Blocks and voice clips need a fresh presence row.
  await enterAtSpawn(alice, 'Alice');
});

test.after(async () => {
  for (const client of [alice.client, bob.client, carol.client]) await client.removeAllChannels();
  await operator.end();
  await server.stop();
});

test('join echoes the bindings with ids, then "Subscribed to PostgreSQL"', async () => {
  const feed = await subscribe(bob.client, [{ event: 'INSERT', schema: 'public', table: 'game_chat_messages' }]);
  assert.equal(feed.system[0], {
    extension: 'postgres_changes',
    status: 'ok',
    message: 'Subscribed to PostgreSQL',
    channel: `rt-test-${channel}`,
  });
  await bob.client.removeChannel(feed.channel);
});

test('INSERT on game_chat_messages arrives with the hosted frame shape', async () => {
  const feed = await subscribe(bob.client, [{ event: 'INSERT', schema: 'public', table: 'game_chat_messages' }]);
  const { error } = await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'hello' });
  assert.is(error, null);
  const [event] = await feed.next(1);
  assert.is(event.eventType, 'INSERT');
  assert.is(event.schema, 'public');
  assert.is(event.table, 'game_chat_messages');
  assert.is(event.errors, null);
  assert.match(event.commit_timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(Object.keys(event.new), ['id', 'player_id', 'player_name', 'message', 'created_at']);
  assert.is(event.new.message, 'hello');
  assert.is(event.new.player_id, alice.address);
  assert.equal(event.old, {});
  await bob.client.removeChannel(feed.channel);
});

test('INSERT on game_voice_messages delivers a row larger than a NOTIFY payload whole', async () => {
  const feed = await subscribe(bob.client, [{ event: 'INSERT', schema: 'public', table: 'game_voice_messages' }]);
  const audio = Buffer.alloc(30_000, 7).toString('base64');
  const { error } = await alice.client
    .from('game_voice_messages')
    .insert({ player_id: alice.address, player_name: 'Alice', audio_data: audio, x: 4, y: -9 });
  assert.is(error, null);
  const [event] = await feed.next(1);
  assert.is((event.new.audio_data as string).length, audio.length);
  assert.is(event.new.audio_data, audio);
  assert.equal([event.new.x, event.new.y], [0, 0], "the sender's tile, set by the server");
  await bob.client.removeChannel(feed.channel);
});

test('INSERT and DELETE on game_blocks; DELETE carries the key columns as old', async () => {
  const feed = await subscribe(bob.client, [
    { event: 'INSERT', schema: 'public', table: 'game_blocks' },
    { event: 'DELETE', schema: 'public', table: 'game_blocks' },
  ]);
  const block = { x: 10, y: 8, block_type: 'gold', player_id: alice.address, player_name: 'Alice' };
  assert.is((await alice.client.from('game_blocks').insert(block)).error, null);
  // A row deleted before its insert is read from the change log is delivered only as a delete
  // (docs/protocols.md), so the delete waits for the insert.
  await feed.next(1);
  const removed = await alice.client.from('game_blocks').delete().eq('x', 10).eq('y', 8).select();
  assert.is(removed.data?.length, 1);
  const [inserted, deleted] = await feed.next(2);
  assert.is(inserted.eventType, 'INSERT');
  assert.is(inserted.new.block_type, 'gold');
  assert.is(deleted.eventType, 'DELETE');
  assert.equal(deleted.new, {});
  assert.equal(deleted.old, { x: 10, y: 8 });
  await bob.client.removeChannel(feed.channel);
});

test('* on game_players with player_id=neq.<own> sees others insert, update and leave, never itself', async () => {
  await alice.client.from('game_players').delete().eq('player_id', alice.address);
  const feed = await subscribe(bob.client, [{ event: '*', schema: 'public', table: 'game_players', filter: `player_id=neq.${bob.address}` }]);
  const presence = (player: TestPlayer, name: string, x: number) => ({ player_id: player.address, player_name: name, x, y: 7, health: 100 });
  // Each of Alice's changes is awaited before the next: a row is checked against RLS as it stands
  // when its change is delivered, so a row gone by then is not delivered as an insert
  // (docs/protocols.md, postgres_changes).
  const arrived = (what: string, matches: (e: Change) => boolean) =>
    waitFor(() => feed.events.some(matches), { timeout: 3000, interval: 10, message: what });
  const of = (e: Change, player: TestPlayer) => (e.new.player_id ?? e.old.player_id) === player.address;
  await bob.client.from('game_players').upsert(presence(bob, 'Bob', 1), { onConflict: 'player_id' });
  await alice.client.from('game_players').upsert(presence(alice, 'Alice', 10), { onConflict: 'player_id' });
  await arrived("Alice's insert", (e) => e.eventType === 'INSERT' && of(e, alice));
  await alice.client.from('game_players').upsert(presence(alice, 'Alice', 12), { onConflict: 'player_id' });
  await arrived("Alice's update", (e) => e.eventType === 'UPDATE' && of(e, alice));
  await alice.client.from('game_players').delete().eq('player_id', alice.address);
  await bob.client.from('game_players').delete().eq('player_id', bob.address);
  // Changes arrive in commit order: once Carol's barrier row is in, Bob's own changes were passed over.
  await carol.client.from('game_players').upsert(presence(carol, 'Carol', 1), { onConflict: 'player_id' });
  await arrived("Carol's insert", (e) => e.eventType === 'INSERT' && of(e, carol));
  await carol.client.from('game_players').delete().eq('player_id', carol.address);
  // The delete of Alice's row before the join may come first: a change committed just before a
  // join can still be read after it, as from hosted's replication slot.
  const first = feed.events.findIndex((e) => e.eventType === 'INSERT');
  const events = feed.events.slice(first, feed.events.findIndex((e) => e.eventType === 'INSERT' && of(e, carol)));
  assert.equal(events.map((e) => e.eventType), ['INSERT', 'UPDATE', 'DELETE']);
  assert.is(events[1].new.x, 12);
  assert.equal(events[1].old, { player_id: alice.address }, 'the default replica identity gives the key alone on UPDATE');
  assert.equal(events[2].old, { player_id: alice.address });
  assert.ok(events.every((e) => (e.new.player_id ?? e.old.player_id) === alice.address));
  await bob.client.removeChannel(feed.channel);
});

test('INSERT on game_combat_logs with victim_id=eq.<own> only delivers attacks on the subscriber', async () => {
  // Fresh players: the authority rules want them to enter at spawn, then stand present,
  // outside spawn and within 64 px of each other (spawn ends at x = 96 px).
  const [attacker, victim, bystander] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  for (const [player, x, name] of [[attacker, 110, 'Fighter1'], [victim, 130, 'Fighter2'], [bystander, 100, 'Fighter3']] as const) {
    for (const at of [90, x]) {
      const row = { player_id: player.address, player_name: name, x: at, y: 16, health: 100 };
      assert.is((await player.client.from('game_players').upsert(row, { onConflict: 'player_id' })).error, null);
    }
  }
  const feed = await subscribe(victim.client, [{ event: 'INSERT', schema: 'public', table: 'game_combat_logs', filter: `victim_id=eq.${victim.address}` }]);
  const hit = (target: string) => ({
    attacker_id: attacker.address,
    attacker_name: 'Fighter1',
    victim_id: target,
    victim_name: 'Fighter',
    damage: 25,
    weapon_type: 'sword',
    x: 9,
    y: 9,
    attacker_x: 110,
    attacker_y: 16,
  });
  assert.is((await attacker.client.from('game_combat_logs').insert(hit(bystander.address))).error, null);
  assert.is((await attacker.client.from('game_combat_logs').insert(hit(victim.address))).error, null);
  // Changes arrive in commit order: the attack on the victim, written last, is the barrier.
  const [event] = await feed.next(1);
  assert.is(feed.events.length, 1);
  assert.is(event.new.victim_id, victim.address);
  assert.is(event.new.attacker_id, attacker.address);
  assert.is(event.new.damage, 25);
  await victim.client.removeAllChannels();
});

test('RLS: an anon subscriber hears no change of a row it may not read, its DELETE included; a signed-in reader hears all, the DELETE as its key', async () => {
  const anon = createTestClient(server);
  const feed = await subscribe(anon, [
    { event: 'INSERT', schema: 'public', table: 'game_chat_messages' },
    { event: '*', schema: 'public', table: 'game_blocks' },
  ]);
  const signedIn = await subscribe(bob.client, [
    { event: 'INSERT', schema: 'public', table: 'game_chat_messages' },
    { event: '*', schema: 'public', table: 'game_blocks' },
  ]);
  await enterAtSpawn(alice, 'Alice');
  await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'secret' });
  await alice.client.from('game_blocks').insert({ x: 11, y: 8, block_type: 'wood', player_id: alice.address, player_name: 'Alice' });
  // The insert must be read from the change log before its row is deleted to be delivered.
  await signedIn.next(2);
  await alice.client.from('game_blocks').delete().eq('x', 11).eq('y', 8);
  const events = await signedIn.next(3);
  assert.equal(events.map((e) => e.eventType), ['INSERT', 'INSERT', 'DELETE']);
  assert.equal(events[2]!.old, { x: 11, y: 8 });
  // The anon socket's own broadcast comes back after anything these changes sent it.
  let echoed = false;
  const echo = anon.channel('rt-anon-echo', { config: { broadcast: { self: true } } }).on('broadcast', { event: 'done' }, () => (echoed = true));
  await subscribeChannel(echo);
  await echo.send({ type: 'broadcast', event: 'done', payload: {} });
  await waitFor(() => echoed, { timeout: 3000, interval: 10, message: 'the anon socket\'s echo' });
  assert.equal(feed.events, []);
  await anon.removeAllChannels();
  await bob.client.removeChannel(signedIn.channel);
});

test('a binding on a table outside the publication is reported by a system error', async () => {
  const feed = await subscribe(bob.client, [{ event: 'INSERT', schema: 'public', table: 'no_such_table' }]);
  assert.is(feed.system[0].status, 'error');
  assert.match(String(feed.system[0].message), /Unable to subscribe to changes/);
  await bob.client.removeChannel(feed.channel);
});

test('an access_token update switches the channel from anon to the signed-in reader', async () => {
  const client = createTestClient(server);
  const feed = await subscribe(client, [{ event: 'INSERT', schema: 'public', table: 'game_chat_messages' }]);
  await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'before' });
  await awaitDatabaseMarker(client, operator);
  assert.is(feed.events.length, 0);
  const { data } = await bob.client.auth.getSession();
  await client.realtime.setAuth(data.session!.access_token);
  // Kept: nothing answers an access_token push, and a marker's join would not do here: after
  // every join realtime-js asks supabase-js for the token again, which would undo this one.
  await sleep(300);
  await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'after' });
  const [event] = await feed.next(1);
  assert.is(event.new.message, 'after');
  await client.removeAllChannels();
});

test.run();
