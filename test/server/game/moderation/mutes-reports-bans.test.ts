/**
 * Moderation: personal mutes (voice of a muted wallet never reaches the muter), reports with
 * server-filled context and their limits, and what only operators may do: bans (sign-in refused
 * with the reason, sessions and presence ended within 2 s, writes refused), tile history, rollback
 * with a preview and its undo, and the append-only operators' log. Each refusal beside its
 * honest path.
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOps } from '../../../../scripts/ops.js';
import { connectAsOperator } from '../../../support/server.js';
import { waitFor } from '../../../support/wait.js';
import { awaitDatabaseMarker } from '../../../support/live.js';
import { createTestWallet, signInPlayer, startTestServer, type TestPlayer, type TestServer, type TestWallet } from '../../../support/harness.js';
import { blockRow, enterAtSpawn, nameOf } from '../../../support/rules.js';

let server: TestServer;
let operatorWallet: TestWallet;
let op: TestPlayer;
let alice: TestPlayer;
let bob: TestPlayer;
let carol: TestPlayer;

const clip = (p: TestPlayer) => ({ player_id: p.address, player_name: nameOf(p), audio_data: 'AAAA', x: 0, y: 0 });

/** Subscribes `client` to inserts (or every event) of `table` and collects the rows. */
async function listen(client: SupabaseClient, table: string, event: '*' | 'INSERT' = 'INSERT') {
  const heard: { eventType: string; new: Record<string, unknown>; old: Record<string, unknown> }[] = [];
  let closed = false;
  const channel: RealtimeChannel = client.channel(`${table}-${Math.random()}`).on(
    'postgres_changes' as never,
    { event, schema: 'public', table },
    (change: { eventType: string; new: Record<string, unknown>; old: Record<string, unknown> }) => heard.push(change),
  );
  await new Promise<void>((resolve, reject) =>
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve();
      else if (status === 'CLOSED') closed = true;
      else reject(error ?? new Error(status));
    }),
  );
  return { channel, heard, closed: () => closed };
}

test.before(async () => {
  operatorWallet = createTestWallet();
  server = await startTestServer(undefined, { OPERATOR_WALLETS: ` ${operatorWallet.address} ,` });
  [op, alice, bob, carol] = await Promise.all([signInPlayer(server, operatorWallet), signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
});

test.before.each(async () => {
  await Promise.all([op, alice, bob, carol].map((p) => enterAtSpawn(p)));
});

test.after(async () => {
  // Open channels would keep their clients reconnecting, and the suite's process alive, after the server stops.
  for (const p of [op, alice, bob, carol]) {
    await p.client.removeAllChannels();
    p.client.realtime.disconnect();
  }
  await server.stop();
});

test('is_operator names the OPERATOR_WALLETS only', async () => {
  assert.equal((await op.client.rpc('is_operator')).data, true);
  assert.equal((await alice.client.rpc('is_operator')).data, false);
});

test('a mute hides the muted wallet\'s voice from the muter only, over REST and Realtime; unmute', async () => {
  assert.is((await alice.client.from('game_mutes').insert({ player_id: alice.address, muted_id: bob.address })).error, null);
  assert.equal((await alice.client.from('game_mutes').select('player_id,muted_id')).data, [{ player_id: alice.address, muted_id: bob.address }]);
  // Nobody else reads or writes Alice's mutes.
  assert.equal((await bob.client.from('game_mutes').select('*')).data, []);
  const forged = await carol.client.from('game_mutes').insert({ player_id: alice.address, muted_id: carol.address });
  assert.is(forged.error?.code, '42501');
  const erase = await bob.client.from('game_mutes').delete().eq('player_id', alice.address).select();
  assert.equal(erase.data, []);
  assert.is((await alice.client.from('game_mutes').select('muted_id')).data!.length, 1);

  const [toAlice, toCarol] = await Promise.all([listen(alice.client, 'game_voice_messages'), listen(carol.client, 'game_voice_messages')]);
  const sent = await bob.client.from('game_voice_messages').insert(clip(bob)).select('id').single();
  assert.is(sent.error, null);
  await waitFor(() => toCarol.heard.length === 1, { message: 'Carol hears the clip' });
  const marker = await connectAsOperator(server);
  await awaitDatabaseMarker(alice.client, marker);
  await marker.end();
  assert.is(toAlice.heard.length, 0, 'the muted clip never reaches Alice');
  assert.equal((await alice.client.from('game_voice_messages').select('id').eq('id', sent.data!.id)).data, []);
  assert.equal((await carol.client.from('game_voice_messages').select('id').eq('id', sent.data!.id)).data, [{ id: sent.data!.id }]);

  assert.is((await alice.client.from('game_mutes').delete().eq('muted_id', bob.address)).error, null);
  assert.equal((await alice.client.from('game_voice_messages').select('id').eq('id', sent.data!.id)).data, [{ id: sent.data!.id }]);
  await alice.client.removeChannel(toAlice.channel);
  await carol.client.removeChannel(toCarol.channel);
});

test('a report carries the reported wallet\'s chat and nearby edits; limits and forgery refused', async () => {
  for (const message of ['first line', 'go away']) {
    assert.is((await bob.client.from('game_chat_messages').insert({ player_id: bob.address, player_name: nameOf(bob), message })).error, null);
  }
  assert.is((await bob.client.from('game_blocks').insert(blockRow(bob, 9, 4, 'dirt'))).error, null);
  const made = await alice.client
    .from('game_reports')
    .insert({ reporter_id: alice.address, reported_id: bob.address, reason: 'harassment', note: 'keeps insulting me', status: 'resolved', context: { fake: true } })
    .select()
    .single();
  assert.is(made.error, null, JSON.stringify(made.error));
  const report = made.data as { status: string; note: string; context: { reported_name: string; chat: { message: string }[]; edits: { x: number; y: number; after: string }[]; reporter_tile: unknown } };
  assert.is(report.status, 'open');
  assert.is(report.note, 'keeps insulting me');
  assert.is(report.context.reported_name, nameOf(bob));
  assert.equal(report.context.chat.map((line) => line.message), ['first line', 'go away']);
  assert.equal(report.context.edits.map(({ x, y, after }) => ({ x, y, after })), [{ x: 9, y: 4, after: 'dirt' }]);
  assert.equal(report.context.reporter_tile, { x: 0, y: 0 });

  const again = await alice.client.from('game_reports').insert({ reporter_id: alice.address, reported_id: bob.address, reason: 'spam' });
  assert.is(again.error?.code, '23505');
  assert.is(again.error?.message, 'you already have an open report about this player');
  const forged = await carol.client.from('game_reports').insert({ reporter_id: alice.address, reported_id: bob.address, reason: 'spam' });
  assert.is(forged.error?.code, '42501');
  const badReason = await carol.client.from('game_reports').insert({ reporter_id: carol.address, reported_id: bob.address, reason: 'ugly' });
  assert.is(badReason.error?.code, '23514');
  const longNote = await carol.client.from('game_reports').insert({ reporter_id: carol.address, reported_id: bob.address, reason: 'spam', note: 'x'.repeat(201) });
  assert.is(longNote.error?.code, '23514');
  // Others' reports are not readable.
  assert.equal((await bob.client.from('game_reports').select('id')).data, []);
  assert.is((await alice.client.from('game_reports').select('id')).data!.length, 1);
  assert.is((await op.client.from('game_reports').select('id')).data!.length, 1);
});

test('a report flood: the sixth report within an hour is refused with 429', async () => {
  for (let i = 0; i < 5; i++) {
    const { error } = await carol.client.from('game_reports').insert({ reporter_id: carol.address, reported_id: createTestWallet().address, reason: 'spam' });
    assert.is(error, null, JSON.stringify(error));
  }
  const sixth = await carol.client.from('game_reports').insert({ reporter_id: carol.address, reported_id: createTestWallet().address, reason: 'spam' });
  assert.is(sixth.status, 429);
  assert.is(sixth.error?.code, 'TS429');
  assert.is(sixth.error?.message, 'Too many reports: slow down');
  assert.is((await carol.client.from('game_reports').select('id')).data!.length, 5);
});

test('non-operators: no tile history, rollback, undo, ban, report resolution or log', async () => {
  const history = await alice.client.rpc('tile_history', { x: 9, y: 4 });
  assert.is(history.error?.code, '42501');
  assert.is(history.error?.message, 'only operators may inspect tiles');
  assert.is(history.status, 403);
  const rollback = await alice.client.rpc('rollback_edits', { wallet: bob.address, since: new Date(0).toISOString(), x: 0, y: 0, radius: 10, dry_run: true });
  assert.is(rollback.error?.message, 'only operators may roll back edits');
  const undo = await alice.client.rpc('undo_rollback', { id: 1 });
  assert.is(undo.error?.message, 'only operators may undo rollbacks');
  const resolve = await alice.client.rpc('resolve_report', { report_id: 1 });
  assert.is(resolve.error?.message, 'only operators may resolve reports');
  const ban = await alice.client.from('game_bans').insert({ player_id: bob.address, scope: 'play', reason: 'because' });
  assert.is(ban.error?.code, '42501');
  assert.equal((await alice.client.from('game_bans').select('*')).data, []);
  assert.equal((await alice.client.from('game_ops_log').select('*')).data, []);
  assert.equal((await alice.client.from('game_rollbacks').select('*')).data, []);
});

test('inspect a tile, preview a rollback, roll back live, skip what others built on, undo', async () => {
  // Alice's wall; Bob removes two of its blocks and places three of his own; Carol then builds
  // on one of the tiles Bob emptied.
  for (const x of [3, 4, 5]) assert.is((await alice.client.from('game_blocks').insert(blockRow(alice, x, -6, 'brick'))).error, null);
  const before = new Date(Date.now() - 1000).toISOString();
  for (const x of [3, 4]) assert.is((await bob.client.from('game_blocks').delete().eq('x', x).eq('y', -6)).error, null);
  for (const x of [6, 7, 8]) assert.is((await bob.client.from('game_blocks').insert(blockRow(bob, x, -6, 'dirt'))).error, null);
  assert.is((await carol.client.from('game_blocks').insert(blockRow(carol, 4, -6, 'glass'))).error, null);

  const history = await op.client.rpc('tile_history', { x: 4, y: -6 });
  assert.is(history.error, null);
  assert.equal(
    (history.data as { actor_id: string; before_type: string | null; after_type: string | null }[]).map(({ actor_id, before_type, after_type }) => ({ actor_id, before_type, after_type })),
    [
      { actor_id: carol.address, before_type: null, after_type: 'glass' },
      { actor_id: bob.address, before_type: 'brick', after_type: null },
      { actor_id: alice.address, before_type: null, after_type: 'brick' },
    ],
  );

  const args = { wallet: bob.address, since: before, x: 5, y: -6, radius: 10 };
  const preview = await op.client.rpc('rollback_edits', { ...args, dry_run: true });
  assert.equal(preview.data, { id: null, dry_run: true, removed: 3, restored: 1, skipped: 1 });
  const state = async () =>
    ((await op.client.from('game_blocks').select('x,block_type,player_id').eq('y', -6).gte('x', 3).lte('x', 8).order('x')).data as { x: number; block_type: string; player_id: string }[]).map(
      (b) => `${b.x}:${b.block_type}:${b.player_id === alice.address ? 'alice' : b.player_id === bob.address ? 'bob' : 'carol'}`,
    );
  const built = ['4:glass:carol', '5:brick:alice', '6:dirt:bob', '7:dirt:bob', '8:dirt:bob'];
  assert.equal(await state(), built, 'the preview changed nothing');

  const watcher = await listen(alice.client, 'game_blocks', '*');
  const done = await op.client.rpc('rollback_edits', { ...args, dry_run: false });
  assert.is(done.error, null, JSON.stringify(done.error));
  const { id } = done.data as { id: number };
  assert.equal(done.data, { id, dry_run: false, removed: 3, restored: 1, skipped: 1 });
  const rolledBack = ['3:brick:alice', '4:glass:carol', '5:brick:alice'];
  assert.equal(await state(), rolledBack);
  await waitFor(() => watcher.heard.length >= 4, { message: 'Alice sees the rollback live' });
  assert.equal(watcher.heard.map((change) => change.eventType).sort(), ['DELETE', 'DELETE', 'DELETE', 'INSERT']);
  // The rollback's own edits are recorded with the operator as actor.
  const afterHistory = await op.client.rpc('tile_history', { x: 3, y: -6 });
  assert.is((afterHistory.data as { actor_id: string; after_owner: string }[])[0]!.actor_id, op.address);
  assert.is((afterHistory.data as { actor_id: string; after_owner: string }[])[0]!.after_owner, alice.address);

  const undone = await op.client.rpc('undo_rollback', { id });
  assert.equal(undone.data, { id, reverted: 4, skipped: 0 });
  assert.equal(await state(), built);
  const twice = await op.client.rpc('undo_rollback', { id });
  assert.is(twice.error?.message, `rollback ${id} was already undone`);
  await alice.client.removeChannel(watcher.channel);

  const tooWide = await op.client.rpc('rollback_edits', { ...args, radius: 65, dry_run: true });
  assert.is(tooWide.error?.message, 'the radius is 0 to 64 tiles');
});

test('a chat ban refuses chat and voice only; lifting it lets the wallet speak', async () => {
  const banned = await op.client.from('game_bans').insert({ player_id: carol.address, scope: 'chat', reason: 'spam links' }).select('player_id,scope,reason,until,by').single();
  assert.equal(banned.data, { player_id: carol.address, scope: 'chat', reason: 'spam links', until: null, by: op.address });
  const chat = await carol.client.from('game_chat_messages').insert({ player_id: carol.address, player_name: nameOf(carol), message: 'buy now' });
  assert.is(chat.error?.code, '42501');
  assert.is(chat.error?.message, 'banned from chat and voice: spam links');
  assert.is(chat.status, 403);
  assert.is((await carol.client.from('game_voice_messages').insert(clip(carol))).error?.code, '42501');
  assert.is((await carol.client.from('game_blocks').insert(blockRow(carol, -9, 5))).error, null);
  // The banned wallet reads its own ban, so the game can say why.
  assert.is((await carol.client.from('game_bans').select('reason')).data![0]!.reason, 'spam links');
  assert.is((await op.client.from('game_bans').delete().eq('player_id', carol.address)).error, null);
  assert.is((await carol.client.from('game_chat_messages').insert({ player_id: carol.address, player_name: nameOf(carol), message: 'sorry' })).error, null);
});

test('a play ban: sessions closed and presence gone within 2 s, writes and sign-in refused; unban', async () => {
  /** The claims of a player's access token, as the server sets them for its requests. */
  const claimsOf = async (p: TestPlayer) => {
    const token = (await p.client.auth.getSession()).data.session!.access_token;
    return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
  };
  const bobClaims = await claimsOf(bob);
  const presence = await listen(alice.client, 'game_players', '*');
  const bobChannel = await listen(bob.client, 'game_chat_messages');
  const until = new Date(Date.now() + 3600_000);
  const bannedAt = Date.now();
  const ban = await op.client.from('game_bans').insert({ player_id: bob.address, scope: 'play', reason: 'griefing the spawn', until: until.toISOString() });
  assert.is(ban.error, null, JSON.stringify(ban.error));
  await waitFor(() => presence.heard.some((change) => change.eventType === 'DELETE' && change.old.player_id === bob.address), { timeout: 2000, message: 'Bob\'s presence gone' });
  await waitFor(() => bobChannel.closed(), { timeout: 2000 - (Date.now() - bannedAt), message: 'Bob\'s channel closed' });
  assert.equal((await op.client.from('game_players').select('player_id').eq('player_id', bob.address)).data, []);

  // Bob's token no longer writes, over REST or Realtime.
  const write = await bob.client.from('game_chat_messages').insert({ player_id: bob.address, player_name: nameOf(bob), message: 'still here' });
  assert.is(write.status, 401);
  const rejoin = bob.client.channel(`again-${Math.random()}`, { config: { private: true } });
  const status = await new Promise<string>((resolve) => rejoin.subscribe((s) => (s === 'SUBSCRIBED' || s === 'CHANNEL_ERROR' || s === 'TIMED_OUT' ? resolve(s) : undefined)));
  assert.is(status, 'CHANNEL_ERROR');

  // Signing in again is refused with the reason and the end.
  const again = await signInPlayer(server, bob.wallet).then(
    () => null,
    (error: { status?: number; code?: string; message: string }) => error,
  );
  assert.is(again?.status, 403);
  assert.is(again?.code, 'user_banned');
  assert.is(again?.message, `This wallet is banned from play until ${until.toISOString()}: griefing the spawn.`);

  // The database refuses the banned wallet by itself, as on a hosted project where its token
  // would still be valid: every write, and Realtime's send and join checks.
  const admin = await connectAsOperator(server);
  // A failed assertion below leaves it open until the server stops: that end is no error.
  admin.on('error', () => undefined);
  /** Runs `sql` with a player's `claims` in a transaction that is rolled back, after `setup` as the superuser. */
  const as = async (claims: Record<string, unknown>, sql: string, setup = 'select 1') => {
    await admin.query('begin');
    try {
      await admin.query(setup);
      await admin.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true), set_config('realtime.topic', 'region:0:0', true)`, [
        JSON.stringify(claims),
      ]);
      return await admin.query(sql).then((result) => result.rowCount, (error: Error) => error.message);
    } finally {
      await admin.query('rollback');
    }
  };
  const asBob = (sql: string, setup?: string) => as(bobClaims, sql, setup);
  const banned = 'banned from play: griefing the spawn';
  assert.is(await asBob(`insert into public.game_players (player_id, player_name) values ('${bob.address}', '${nameOf(bob)}')`), banned);
  assert.is(await asBob(`insert into public.game_chat_messages (player_id, player_name, message) values ('${bob.address}', '${nameOf(bob)}', 'hi')`), banned);
  assert.is(await asBob(`delete from public.game_blocks where x = 8 and y = -6`), banned);
  assert.is(await asBob(`delete from public.game_claims where id = '00000000-0000-0000-0000-000000000000'`), banned);
  assert.is(await asBob(`insert into public.game_mutes (player_id, muted_id) values ('${bob.address}', '${alice.address}')`), banned);
  assert.is(await asBob(`insert into realtime.messages (topic, extension, event, payload, private) values ('region:0:0', 'broadcast', 'pose', '{}', true)`), 'new row violates row-level security policy for table "messages"');
  // Realtime's join check reads a row of the topic: Alice may, Bob may not even with a fresh presence row.
  const message = `insert into realtime.messages (topic, extension, event, payload, private) values ('region:0:0', 'broadcast', 'pose', '{}', true)`;
  const join = `select 1 from realtime.messages where topic = 'region:0:0'`;
  assert.is(await as(await claimsOf(alice), join, message), 1);
  assert.is(await asBob(join, `${message}; insert into public.game_players (player_id, player_name) values ('${bob.address}', '${nameOf(bob)}')`), 0);
  await admin.end();

  const ops = (await op.client.from('game_ops_log').select('action,target').order('id')).data as { action: string; target: string }[];
  assert.equal(ops.slice(-1), [{ action: 'ban', target: bob.address }]);

  assert.is((await op.client.from('game_bans').delete().eq('player_id', bob.address)).error, null);
  // The banned session's client gives up its channels: they would keep it reconnecting.
  await bob.client.removeAllChannels();
  bob.client.realtime.disconnect();
  bob = await signInPlayer(server, bob.wallet);
  await enterAtSpawn(bob);
  assert.equal((await op.client.from('game_ops_log').select('action,target').order('id', { ascending: false }).limit(1)).data, [{ action: 'unban', target: bob.address }]);
  await alice.client.removeChannel(presence.channel);
});

test('the operators\' log is append-only, even for the operators', async () => {
  const log = (await op.client.from('game_ops_log').select('action').order('id')).data as { action: string }[];
  assert.ok(log.length >= 8);
  assert.ok(['inspect', 'rollback', 'undo_rollback', 'ban', 'unban'].every((action) => log.some((row) => row.action === action)));
  const erase = await op.client.from('game_ops_log').delete().gte('id', 0);
  assert.is(erase.error?.code, '42501');
});

test('npm run ops: ban, bans, unban, reports, rollback preview and the log with the service-role key', async () => {
  const env = { DATA_DIR: server.dataDir, TESSERA_URL: server.url };
  const until = '2099-01-01T00:00:00.000Z';
  assert.is(await runOps(['ban', carol.address, '--reason', 'bot farming', '--until', until], env), `banned ${carol.address} from play until 2099-01-01T00:00:00+00:00: bot farming`);
  // Refused by the database (403, banned) or, once the server ended her sessions, by the token check (401).
  const write = await carol.client.from('game_chat_messages').insert({ player_id: carol.address, player_name: nameOf(carol), message: 'hi' });
  assert.ok([401, 403].includes(write.status), JSON.stringify(write));
  assert.match(await runOps(['bans'], env), `${carol.address} play 2099-01-01T00:00:00+00:00 by service_role: bot farming`);
  assert.is(await runOps(['unban', carol.address], env), `lifted 1 ban(s) of ${carol.address}`);
  assert.match(await runOps(['reports'], env), `${bob.address} (${nameOf(bob)}) for harassment by ${alice.address} "keeps insulting me"; 2 chat lines, 1 edits`);
  assert.is(await runOps(['rollback', bob.address, '--x', '0', '--y', '0', '--radius', '5', '--minutes', '60'], env), 'preview: 0 removed, 0 restored, 0 skipped, 0 claims (run again with --apply)');
  assert.match(await runOps(['log', '--limit', '2'], env), / service_role unban /);
  const failure = (run: Promise<string>) => run.then(() => null, (error: Error) => error.message);
  assert.is(await failure(runOps(['ban', carol.address], env)), 'ban needs a WALLET and --reason');
  assert.match((await failure(runOps(['bans'], { DATA_DIR: '/nonexistent', TESSERA_URL: server.url })))!, 'cannot read /nonexistent/service_role.key');
  carol = await signInPlayer(server, carol.wallet);
});

test.run();
