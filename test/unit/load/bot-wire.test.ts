/**
 * The load bots (test/support/load/) put on the wire what the game puts there: the pose payloads
 * of net/'s sender, realtime-js's frames for the same channels and broadcasts, postgrest-js's
 * requests for the same reads and heartbeat, and the block regions net/ holds along a walk.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient } from '@supabase/supabase-js';
import { RealtimeClient } from '@supabase/realtime-js';
import Serializer from '@supabase/realtime-js/dist/main/lib/serializer.js';
import { DEFAULT_APPEARANCE } from '../../../components/appearance-types.js';
import { walkVelocity } from '../../../protocol/movement.js';
import { createBlockSync } from '../../../net/blocks/blocks.js';
import { CLAIMS_KEPT } from '../../../net/claims/known.js';
import { readClaimsIn, readOwnClaims, readTrusts } from '../../../net/claims/queries.js';
import { createHeartbeat } from '../../../net/presence/heartbeat.js';
import { readActivity } from '../../../net/online.js';
import { createPoseSender, REGION_CHANNEL_CONFIG } from '../../../net/poses/poses.js';
import { readRemovals } from '../../../net/restorable.js';
import { BotBlocks } from '../../support/load/bot-blocks.js';
import { PoseSender } from '../../support/load/pose-sender.js';
import * as q from '../../support/load/queries.js';
import { restHeaders, restUrl } from '../../support/load/rest.js';
import type { BotChannel } from '../../support/load/socket.js';
import { broadcastPush, joinPayload, textFrame, type ChangeBinding, type ChannelConfig } from '../../support/load/wire.js';
import { seededRng } from '../../support/rng.js';

const test = suite('load bot wire');
const URL_BASE = 'http://localhost:5173';
const KEY = 'anon-key';
const TOKEN = 'user-token';
const ID = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

test('the pose sender sends exactly the payloads net/poses/poses.ts sends, step for step, over a walk with turns, stops, swings and new topics', () => {
  const rng = seededRng(7);
  let clock = 1_000_000;
  const net = createPoseSender(ID, () => clock);
  const bot = new PoseSender(ID);
  const pose = { x: 100, y: 100, facing: 1, moving: false, isSwinging: false };
  let dx = 0;
  let dy = 0;
  let topic = 'region:0:0';
  let sent = 0;
  for (let n = 1000; n < 6000; n++) {
    clock += 16;
    if (rng.int(40) === 0) {
      dx = rng.int(3) - 1;
      dy = rng.int(3) - 1;
      pose.moving = dx !== 0 || dy !== 0;
      if (dx !== 0) pose.facing = dx;
    }
    if (rng.int(200) === 0) pose.isSwinging = !pose.isSwinging;
    if (rng.int(500) === 0) topic = `region:${rng.int(3)}:0`;
    // Now and then the pose is moved as the engine does not (a respawn): a correction is due.
    if (rng.int(700) === 0) pose.x += 50;
    const { vx, vy } = walkVelocity(dx, dy);
    if (pose.moving) {
      pose.x += vx;
      pose.y += vy;
    }
    const expected = net.due(pose, n, topic);
    const actual = bot.due(pose.x, pose.y, pose.facing, pose.moving, pose.isSwinging, n, topic, clock);
    assert.is(actual, expected ? JSON.stringify(expected.payload) : null, `step ${n}`);
    // A channel not joined yet: the pose is not sent and stays due, in both.
    if (expected && rng.int(10) !== 0) {
      net.sent(expected.topic, expected.payload);
      bot.sent();
      sent++;
    }
  }
  assert.ok(sent > 200, `${sent} poses sent`);
});

test('a pose broadcast is the binary push realtime-js encodes for channel.send', () => {
  const payload = { id: ID, x: 12, y: -40, dx: 1, dy: 0, n: 112237019459, f: 1, s: false, t: 1795792311349 };
  const serializer = new Serializer();
  let encoded: string | ArrayBuffer | null = null;
  serializer.encode({ join_ref: '27', ref: '52', topic: 'realtime:region:0:0', event: 'broadcast', payload: { type: 'broadcast', event: 'pose', payload } }, (result: string | ArrayBuffer) => (encoded = result));
  assert.equal(broadcastPush('27', '52', 'realtime:region:0:0', 'pose', JSON.stringify(payload)), Buffer.from(encoded as unknown as ArrayBuffer));
});

/** A websocket that opens at once and keeps what realtime-js sends. */
class FakeSocket {
  static sent: string[] = [];
  readonly readyState = 1;
  binaryType = 'arraybuffer';
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
    setTimeout(() => this.onopen?.(), 0);
  }
  send(data: string): void {
    FakeSocket.sent.push(data);
  }
  close(): void {}
}

test('joins are the phx_join frames realtime-js sends for the game\'s region, block and presence channels', async () => {
  const client = new RealtimeClient('ws://localhost:5173/realtime/v1', { transport: FakeSocket as never, params: { apikey: KEY } });
  client.setAuth(TOKEN);
  const filter = 'region=in.(0:0,-1:-1)';
  const bindings: ChangeBinding[] = [
    { event: 'INSERT', schema: 'public', table: 'game_players', filter },
    { event: 'UPDATE', schema: 'public', table: 'game_players', filter },
    { event: 'DELETE', schema: 'public', table: 'game_players' },
  ];
  const cases: Array<{ topic: string; config: ChannelConfig; bindings: ChangeBinding[] }> = [
    { topic: 'region:0:0', config: REGION_CHANNEL_CONFIG.config, bindings: [] },
    { topic: 'blocks:1:-1', config: { private: true }, bindings: [] },
    { topic: 'game_players:1', config: {}, bindings },
  ];
  for (const { topic, config, bindings: list } of cases) {
    const channel = client.channel(topic, { config });
    for (const binding of list) channel.on('postgres_changes', binding as never, () => undefined);
    channel.subscribe();
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  const joins = FakeSocket.sent.map((frame) => JSON.parse(frame) as unknown[]).filter((frame) => frame[3] === 'phx_join');
  assert.is(joins.length, 3);
  for (const [i, { topic, config, bindings: list }] of cases.entries()) {
    const [joinRef, ref] = joins[i] as [string, string];
    assert.is(textFrame(joinRef, ref, `realtime:${topic}`, 'phx_join', joinPayload(config, list, TOKEN)), JSON.stringify(joins[i]));
  }
  client.disconnect();
});

/** What postgrest-js sent for one call. */
interface Captured {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A supabase-js client whose requests are kept and answered `[]` (or `answer`). */
function capturingClient(answer = '[]') {
  const calls: Captured[] = [];
  const db = createClient(URL_BASE, KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
    accessToken: async () => TOKEN,
    realtime: { transport: FakeSocket as never },
    global: {
      fetch: async (input, init) => {
        const headers = Object.fromEntries(new Headers(init?.headers).entries());
        calls.push({ url: String(input), method: init?.method ?? 'GET', headers, body: init?.body === undefined ? undefined : String(init.body) });
        return new Response(answer, { status: 200, headers: { 'content-type': 'application/json' } });
      },
    },
  });
  return { db, calls };
}

/** The bot's request as the same shape. */
function botRequest(request: q.GameRequest): Captured {
  const headers = restHeaders(KEY, TOKEN, request.call);
  return { url: restUrl(URL_BASE, request.table, request.query), method: request.call.method ?? 'GET', headers, body: request.call.body };
}

test('reads are the requests net/ makes through postgrest-js: URL, method and headers', async () => {
  const { db, calls } = capturingClient();
  const now = Date.parse('2026-11-27T15:00:00.000Z');
  const area = { x1: -40, y1: -30, x2: 40, y2: 30 };
  await readClaimsIn(db, area);
  await readClaimsIn(db, area, CLAIMS_KEPT);
  await readOwnClaims(db, ID);
  await readTrusts(db, ID, CLAIMS_KEPT);
  await readRemovals(db, ID, now);
  await readActivity(db, now);
  const expected = [q.claimsInRequest(area), q.claimsInRequest(area, CLAIMS_KEPT), q.ownClaimsRequest(ID), q.trustsRequest(ID), q.removalsRequest(ID, now), ...q.onlineRequests(now)];
  const clientInfo = calls[0]!.headers['x-client-info'];
  assert.equal(calls.map((call) => ({ ...call, headers: { ...call.headers, 'x-client-info': clientInfo } })), expected.map(botRequest).map((call) => ({ ...call, headers: { ...call.headers, 'x-client-info': clientInfo } })));
});

test('the heartbeat is the upsert net/presence/heartbeat.ts sends: URL, headers and row', async () => {
  const { db, calls } = capturingClient('[{"health":100,"level":1}]');
  const now = Date.parse('2026-11-27T15:00:00.000Z');
  const heartbeat = createHeartbeat(db, {
    readLocal: () => ({ id: ID, name: 'Bot1', x: 10.4, y: -3.6, health: 100, maxHealth: 100, level: 1, appearance: { ...DEFAULT_APPEARANCE }, isSwinging: false }),
    emit: () => undefined,
    now: () => now,
    hitsHeard: () => 0,
  });
  await heartbeat.beat();
  const expected = botRequest(q.heartbeatRequest(ID, 'Bot1', 10.4, -3.6, now));
  assert.equal({ ...calls[0]!, headers: { ...calls[0]!.headers, 'x-client-info': '' } }, { ...expected, headers: { ...expected.headers, 'x-client-info': '' } });
});

/** A db whose channels net/blocks/blocks.ts makes and removes, never joined. */
function channelOnlyDb() {
  const channel = { on: () => channel, subscribe: () => channel, state: 'joining' };
  return { channel: () => channel, removeChannel: async () => 'ok', from: () => { throw new Error('no read before a join'); } };
}

test('the bot holds the block regions net/blocks/blocks.ts holds at every step of a long walk', () => {
  const net = createBlockSync(channelOnlyDb() as never, { playerId: ID, playerName: () => 'Bot1', emit: () => undefined, notice: () => undefined });
  const joined = new Set<string>();
  const bot = new BotBlocks({
    join: (topic): BotChannel => {
      joined.add(topic);
      return { topic, joinRef: '1', joined: false, payload: '', tries: 0, rejoinAt: 0 };
    },
    leave: (channel) => joined.delete(channel.topic),
    request: async () => 200,
    regionJoined: () => undefined,
  });
  let x = 0;
  let y = 0;
  const rng = seededRng(3);
  let direction = { vx: 3, vy: 0 };
  for (let step = 0; step < 8000; step++) {
    if (step % 300 === 0) direction = walkVelocity(rng.int(3) - 1, rng.int(3) - 1);
    x += direction.vx;
    y += direction.vy;
    net.follow(x, y);
    bot.follow(x, y, 0);
    assert.equal(bot.topics().sort(), net.topics().sort(), `step ${step} at ${x},${y}`);
    assert.equal([...joined].sort(), net.topics().sort());
  }
});

test.run();
