import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { createTestClient, removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from './harness.js';

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
  await new Promise<void>((resolve, reject) =>
    ch.subscribe((status, error) => (status === 'SUBSCRIBED' ? resolve() : status !== 'CLOSED' && reject(error ?? new Error(status)))),
  );
  await waitUntil(() => system.length > 0, 2000);
  return {
    channel: ch,
    events,
    system,
    async next(count, ms = 3000) {
      await waitUntil(() => events.length >= count, ms);
      return events;
    },
  };
}

async function waitUntil(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Gives late frames a chance to arrive before asserting that none did. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

test.before(async () => {
  server = await startTestServer();
  alice = await signInPlayer(server);
  bob = await signInPlayer(server);
  carol = await signInPlayer(server);
});

test.after(async () => {
  for (const client of [alice.client, bob.client, carol.client]) await client.removeAllChannels();
  await server.stop();
  await removeDataDir(server.dataDir);
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
  assert.is(event.new.x, 4);
  assert.is(event.new.y, -9);
  await bob.client.removeChannel(feed.channel);
});

test('INSERT and DELETE on game_blocks; DELETE carries the key columns as old', async () => {
  const feed = await subscribe(bob.client, [
    { event: 'INSERT', schema: 'public', table: 'game_blocks' },
    { event: 'DELETE', schema: 'public', table: 'game_blocks' },
  ]);
  const block = { x: 40, y: 41, block_type: 'gold', player_id: alice.address, player_name: 'Alice' };
  assert.is((await alice.client.from('game_blocks').insert(block)).error, null);
  const removed = await alice.client.from('game_blocks').delete().eq('x', 40).eq('y', 41).select();
  assert.is(removed.data?.length, 1);
  const [inserted, deleted] = await feed.next(2);
  assert.is(inserted.eventType, 'INSERT');
  assert.is(inserted.new.block_type, 'gold');
  assert.is(deleted.eventType, 'DELETE');
  assert.equal(deleted.new, {});
  assert.equal(deleted.old, { x: 40, y: 41 });
  await bob.client.removeChannel(feed.channel);
});

test('* on game_players with player_id=neq.<own> sees others insert, update and leave, never itself', async () => {
  const feed = await subscribe(bob.client, [{ event: '*', schema: 'public', table: 'game_players', filter: `player_id=neq.${bob.address}` }]);
  const presence = (player: TestPlayer, name: string, x: number) => ({ player_id: player.address, player_name: name, x, y: 7, health: 100 });
  await bob.client.from('game_players').upsert(presence(bob, 'Bob', 1), { onConflict: 'player_id' });
  await alice.client.from('game_players').upsert(presence(alice, 'Alice', 10), { onConflict: 'player_id' });
  await alice.client.from('game_players').upsert(presence(alice, 'Alice', 12), { onConflict: 'player_id' });
  await alice.client.from('game_players').delete().eq('player_id', alice.address);
  await bob.client.from('game_players').delete().eq('player_id', bob.address);
  const events = await feed.next(3);
  await settle();
  assert.equal(events.map((e) => e.eventType), ['INSERT', 'UPDATE', 'DELETE']);
  assert.is(events[1].new.x, 12);
  assert.is(events[1].old.x, 10, 'replica identity full gives the whole old row on UPDATE');
  assert.equal(events[2].old, { player_id: alice.address });
  assert.ok(events.every((e) => (e.new.player_id ?? e.old.player_id) === alice.address));
  await bob.client.removeChannel(feed.channel);
});

test('INSERT on game_combat_logs with victim_id=eq.<own> only delivers attacks on the subscriber', async () => {
  // Fresh players: the authority rules want them to enter at spawn, then stand present,
  // outside spawn and within 64 px of each other (spawn ends at x = 96 px).
  const [attacker, victim, bystander] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  for (const [player, x] of [[attacker, 110], [victim, 130], [bystander, 100]] as const) {
    for (const at of [90, x]) {
      const row = { player_id: player.address, player_name: 'Fighter', x: at, y: 16, health: 100 };
      assert.is((await player.client.from('game_players').upsert(row, { onConflict: 'player_id' })).error, null);
    }
  }
  const feed = await subscribe(victim.client, [{ event: 'INSERT', schema: 'public', table: 'game_combat_logs', filter: `victim_id=eq.${victim.address}` }]);
  const hit = (target: string) => ({
    attacker_id: attacker.address,
    attacker_name: 'Fighter',
    victim_id: target,
    victim_name: 'Fighter',
    damage: 25,
    weapon_type: 'sword',
    x: 9,
    y: 9,
  });
  assert.is((await attacker.client.from('game_combat_logs').insert(hit(bystander.address))).error, null);
  assert.is((await attacker.client.from('game_combat_logs').insert(hit(victim.address))).error, null);
  const [event] = await feed.next(1);
  await settle();
  assert.is(feed.events.length, 1);
  assert.is(event.new.victim_id, victim.address);
  assert.is(event.new.attacker_id, attacker.address);
  assert.is(event.new.damage, 25);
  await victim.client.removeAllChannels();
});

test('RLS: an anon subscriber gets no rows it may not read, but DELETE keys as on hosted', async () => {
  const anon = createTestClient(server);
  const feed = await subscribe(anon, [
    { event: 'INSERT', schema: 'public', table: 'game_chat_messages' },
    { event: '*', schema: 'public', table: 'game_blocks' },
  ]);
  const signedIn = await subscribe(bob.client, [{ event: 'INSERT', schema: 'public', table: 'game_chat_messages' }]);
  await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'secret' });
  await alice.client.from('game_blocks').insert({ x: 50, y: 50, block_type: 'wood', player_id: alice.address, player_name: 'Alice' });
  await alice.client.from('game_blocks').delete().eq('x', 50).eq('y', 50);
  await signedIn.next(1);
  const events = await feed.next(1);
  await settle();
  assert.is(events.length, 1);
  assert.is(events[0].eventType, 'DELETE');
  assert.equal(events[0].old, { x: 50, y: 50 });
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
  await settle();
  assert.is(feed.events.length, 0);
  const { data } = await bob.client.auth.getSession();
  await client.realtime.setAuth(data.session!.access_token);
  await settle();
  await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'after' });
  const [event] = await feed.next(1);
  assert.is(event.new.message, 'after');
  await client.removeAllChannels();
});

test.run();
