import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { createTestClient, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { waitFor } from '../../support/wait.js';
import { subscribeChannel } from '../../support/live.js';

let server: TestServer;
let alice: TestPlayer;

/** A raw Phoenix client: every received frame is kept, text parsed as JSON, binary as Buffer. */
interface Raw {
  ws: WebSocket;
  frames: unknown[];
  send(frame: unknown): void;
  /** Waits for a received frame that `match` accepts. */
  take(match: (frame: unknown) => boolean, ms?: number): Promise<unknown>;
}

async function raw(vsn: '1.0.0' | '2.0.0' = '2.0.0', apikey = server.anonKey): Promise<Raw> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${apikey}&vsn=${vsn}`);
  const frames: unknown[] = [];
  ws.on('message', (data: Buffer, isBinary: boolean) => frames.push(isBinary ? data : JSON.parse(data.toString())));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return {
    ws,
    frames,
    send: (frame) => ws.send(Buffer.isBuffer(frame) ? frame : JSON.stringify(frame)),
    async take(match, ms = 2000) {
      const index = await waitFor(() => frames.findIndex(match) + 1, {
        timeout: ms,
        interval: 10,
        message: () => `a matching frame in ${JSON.stringify(frames).slice(0, 400)}`,
      });
      return frames.splice(index - 1, 1)[0];
    },
  };
}

const replyTo = (ref: string) => (frame: unknown) => Array.isArray(frame) && frame[1] === ref && frame[3] === 'phx_reply';

/** A user broadcast push (kind 3) as realtime-js encodes it. */
function push(joinRef: string, ref: string, topic: string, event: string, body: Buffer, encoding: 0 | 1): Buffer {
  const parts = [joinRef, ref, topic, event].map((s) => Buffer.from(s));
  return Buffer.concat([Buffer.from([3, ...parts.map((p) => p.length), 0, encoding]), ...parts, body]);
}

async function joined(client: SupabaseClient, name: string, config: Record<string, unknown>, onMessage: (payload: unknown) => void): Promise<RealtimeChannel> {
  const channel = client.channel(name, { config }).on('broadcast', { event: 'pos' }, onMessage);
  await subscribeChannel(channel);
  return channel;
}

test.before(async () => {
  server = await startTestServer();
  alice = await signInPlayer(server);
});

test.after(async () => {
  await server.stop();
});

test('heartbeat, join without bindings and leave are answered', async () => {
  const c = await raw();
  c.send([null, '1', 'phoenix', 'heartbeat', {}]);
  assert.equal(await c.take(replyTo('1')), [null, '1', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
  c.send(['2', '2', 'realtime:lobby', 'phx_join', { config: { broadcast: { self: false } } }]);
  assert.equal(await c.take(replyTo('2')), ['2', '2', 'realtime:lobby', 'phx_reply', { status: 'ok', response: { postgres_changes: [] } }]);
  c.send(['2', '3', 'realtime:lobby', 'phx_leave', {}]);
  assert.equal(await c.take(replyTo('3')), ['2', '3', 'realtime:lobby', 'phx_reply', { status: 'ok', response: {} }]);
  c.ws.close();
});

test('broadcast reaches the other members only, unless self is set; ack is answered', async () => {
  const a = createTestClient(server);
  const b = createTestClient(server);
  const seenByA: unknown[] = [];
  const seenByB: unknown[] = [];
  const channelA = await joined(a, 'room-1', { broadcast: { self: false } }, (p) => seenByA.push(p));
  await joined(b, 'room-1', { broadcast: { self: false } }, (p) => seenByB.push(p));
  assert.is(await channelA.send({ type: 'broadcast', event: 'pos', payload: { x: 1, y: 2 } }), 'ok');
  await waitFor(() => seenByB.length > 0, { message: 'the broadcast at B' });
  // The barrier for A: the server answers A's next join only after it handled A's broadcast, so
  // a copy sent to A itself would have arrived before the join's reply.
  const selfSeen: unknown[] = [];
  const selfChannel = await joined(a, 'room-2', { broadcast: { self: true, ack: true } }, (p) => selfSeen.push(p));
  assert.equal(seenByB, [{ type: 'broadcast', event: 'pos', payload: { x: 1, y: 2 } }]);
  assert.equal(seenByA, []);

  // The ack is sent after the copies of the broadcast, so the copy to self is in by then.
  assert.is(await selfChannel.send({ type: 'broadcast', event: 'pos', payload: { x: 3 } }), 'ok');
  assert.equal(selfSeen, [{ type: 'broadcast', event: 'pos', payload: { x: 3 } }]);
  await a.removeAllChannels();
  await b.removeAllChannels();
});

test('binary broadcast frames: kind 3 in, kind 4 out, JSON and raw payloads', async () => {
  const sender = await raw();
  const receiver = await raw();
  for (const c of [sender, receiver]) {
    c.send(['1', '1', 'realtime:bin', 'phx_join', { config: { broadcast: { self: false, ack: true } } }]);
    await c.take(replyTo('1'));
  }
  sender.send(push('1', '2', 'realtime:bin', 'pos', Buffer.from('{"x":5}'), 1));
  assert.equal(await sender.take(replyTo('2')), ['1', '2', 'realtime:bin', 'phx_reply', { status: 'ok', response: {} }]);
  const json = (await receiver.take(Buffer.isBuffer)) as Buffer;
  const topic = 'realtime:bin';
  assert.equal([...json.subarray(0, 5)], [4, topic.length, 3, 0, 1]);
  assert.is(json.subarray(5, 5 + topic.length).toString(), topic);
  assert.is(json.subarray(5 + topic.length, 8 + topic.length).toString(), 'pos');
  assert.equal(JSON.parse(json.subarray(8 + topic.length).toString()), { x: 5 });

  sender.send(push('1', '3', 'realtime:bin', 'pcm', Buffer.from([0, 1, 2, 255]), 0));
  const bytes = (await receiver.take(Buffer.isBuffer)) as Buffer;
  assert.is(bytes[4], 0);
  assert.equal([...bytes.subarray(8 + topic.length)], [0, 1, 2, 255]);
  sender.ws.close();
  receiver.ws.close();
});

test('vsn 1.0.0 clients get object frames for joins, changes and broadcasts', async () => {
  const { data } = await alice.client.auth.getSession();
  const client = createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never, vsn: '1.0.0' } as never,
  });
  await client.realtime.setAuth(data.session!.access_token);
  const changes: Record<string, unknown>[] = [];
  const channel = client
    .channel('v1')
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_chat_messages' }, (p) => changes.push(p.new));
  // The join is answered once the subscription is live.
  await subscribeChannel(channel);
  await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message: 'v1 works' });
  await waitFor(() => changes.length > 0, { message: 'the change as a vsn 1.0.0 frame' });
  assert.equal(changes.map((c) => c.message), ['v1 works']);

  const c = await raw('1.0.0');
  c.send({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '9', join_ref: null });
  assert.equal(await c.take((f) => (f as { ref?: string }).ref === '9'), {
    join_ref: null,
    ref: '9',
    topic: 'phoenix',
    event: 'phx_reply',
    payload: { status: 'ok', response: {} },
  });
  c.ws.close();
  await client.removeAllChannels();
});

test('malformed frames and joins get errors and the server keeps serving', async () => {
  const c = await raw();
  c.ws.send('not json');
  const error = (await c.take((f) => Array.isArray(f) && f[3] === 'phx_error')) as unknown[];
  assert.is(error[2], 'phoenix');
  c.send({ topic: 'phoenix', event: 'heartbeat' });
  await c.take((f) => Array.isArray(f) && f[3] === 'phx_error');
  c.send(['1', '1', 'realtime:x', 'phx_join', { config: { postgres_changes: 'all' } }]);
  assert.equal(((await c.take(replyTo('1'))) as unknown[])[4], { status: 'error', response: { reason: 'config.postgres_changes must be an array' } });
  c.send(['2', '2', 'realtime:x', 'phx_join', { config: { postgres_changes: [{ event: 'INSERT' }] } }]);
  assert.is((((await c.take(replyTo('2'))) as unknown[])[4] as { status: string }).status, 'error');
  c.send(['3', '3', 'realtime:x', 'phx_join', { access_token: 'not-a-jwt' }]);
  assert.match(JSON.stringify(await c.take(replyTo('3'))), /Invalid JWT/);
  c.send(['4', '4', 'realtime:unjoined', 'broadcast', { type: 'broadcast', event: 'e', payload: {} }]);
  assert.match(JSON.stringify(await c.take(replyTo('4'))), /unmatched topic/);
  c.send(Buffer.from([9, 1, 2, 3]));
  await c.take((f) => Array.isArray(f) && f[3] === 'phx_error');
  c.send(push('1', '5', 'realtime:x', 'e', Buffer.from('{oops'), 1));
  await c.take((f) => Array.isArray(f) && f[3] === 'phx_error');
  c.send([null, '6', 'phoenix', 'heartbeat', {}]);
  await c.take(replyTo('6'));
  c.ws.close();
  const { error: restError } = await alice.client.from('game_blocks').select('x').limit(1);
  assert.is(restError, null);
});

test('an upgrade without apikey is refused with 401', async () => {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/realtime/v1/websocket?vsn=2.0.0`);
  const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
  assert.is(status, 401);
});

test.run();
