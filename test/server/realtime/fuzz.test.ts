/**
 * A seeded fuzz of the Realtime socket: 600 frames from a fixed seed over several sockets, text
 * and binary, random JSON, joins with random and boundary-size topics, configs, bindings and
 * presence keys, broadcasts with empty, boundary and oversized names, wrong types everywhere.
 * A socket the server closes is replaced. Afterwards the server process still runs, answers a
 * heartbeat and a REST read, and an honest batch-taking member still gets a broadcast.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { accessToken, binaryPush, rawSocket, readBroadcast, replyTo, responseOf, type RawSocket } from '../../support/live.js';
import { seededRng, type Rng } from '../../support/rng.js';
import { sleep } from '../../support/wait.js';

const SEED = 0x5eed_2026;
const FRAMES = 600;
const SOCKETS = 6;


let server: TestServer;
let player: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  player = await signInPlayer(server);
});

test.after(async () => {
  await server.stop();
});

/** Lengths around every bound a name meets: empty, one byte, 254 to 256, far beyond. */
const SIZES = [0, 1, 8, 245, 246, 247, 254, 255, 256, 300, 4096, 70_000];
const ALPHABET = ['x', '€', '💥', '\u0000', '"', ':', '*'];

function text(r: Rng): string {
  return r.pick(ALPHABET).repeat(r.pick(SIZES));
}

/** Topics the sockets meet on (so joins and broadcasts coincide), at and around the 255-byte bound, and random ones. */
const TOPICS = ['realtime:room', `realtime:${'t'.repeat(246)}`, `realtime:${'x'.repeat(300)}`, `realtime:${'€'.repeat(83)}`, 'realtime:region:0:0', 'phoenix'];

function topic(r: Rng): string {
  return r.next() < 0.75 ? r.pick(TOPICS) : r.pick([`realtime:${text(r)}`, text(r)]);
}

function randomJson(r: Rng, depth = 0): unknown {
  switch (r.int(depth > 2 ? 5 : 8)) {
    case 0: return null;
    case 1: return r.next() < 0.5;
    case 2: return r.pick([0, -1, 1e308, Number.MAX_SAFE_INTEGER, 1.5]);
    case 3: return text(r);
    case 4: return r.pick(['', 'INSERT', '*', 'public', 'game_blocks', 'x=like.*', 'id=eq.1']);
    case 5: return Array.from({ length: r.int(4) }, () => randomJson(r, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = r.int(4); i > 0; i--) out[r.pick(['config', 'event', 'payload', 'key', 'filter', text(r).slice(0, 20)])] = randomJson(r, depth + 1);
      return out;
    }
  }
}

function binding(r: Rng): unknown {
  if (r.next() < 0.1) return randomJson(r);
  return {
    event: r.pick(['INSERT', 'UPDATE', 'DELETE', '*', 'insert', 'nope', 5]),
    schema: r.pick(['public', '*', 'auth', 7]),
    table: r.pick(['game_blocks', 'game_voice_messages', 'game_players', undefined, '*', 'nope']),
    filter: r.pick([undefined, 'x=eq.1', 'player_id=in.(a,b)', 'audio_data=like.*A*', 'x=is.null', 'x=not.eq.1', `x=in.(${'1,'.repeat(150)}1)`, text(r), 9]),
    select: r.pick([undefined, ['x'], 'x', [5]]),
  };
}

function joinPayload(r: Rng, token: string): unknown {
  if (r.next() < 0.15) return randomJson(r);
  if (r.next() < 0.3) return { config: { broadcast: { batch: true } } };
  const bindings = Array.from({ length: r.pick([0, 1, 3, 100, 101, 600]) }, () => binding(r));
  return {
    access_token: r.pick([token, token, 'garbage', undefined, 5]),
    config: {
      private: r.pick([false, true, 'true']),
      broadcast: { batch: r.pick([true, false, 'yes']), self: r.next() < 0.5, ack: r.next() < 0.5, replay: r.pick([undefined, { since: 0 }, 'x']) },
      presence: { enabled: r.next() < 0.5, key: r.pick([undefined, '', text(r), 5, {}]) },
      postgres_changes: r.pick([bindings, bindings, 'all', null]),
    },
  };
}

/** One random frame: a text Phoenix message, a binary push (well or badly formed) or raw noise. */
function frame(r: Rng, token: string): Buffer | string {
  const ref = r.pick<unknown>([String(r.int(1000)), null, 5, text(r), {}]);
  switch (r.int(8)) {
    case 0:
    case 7:
      return JSON.stringify([ref, ref, topic(r), 'phx_join', joinPayload(r, token)]);
    case 1:
      return JSON.stringify([ref, ref, topic(r), 'broadcast', { type: 'broadcast', event: r.pick([text(r), 'pose', 'pose', 5, undefined]), payload: randomJson(r) }]);
    case 2:
      return JSON.stringify([ref, ref, topic(r), r.pick(['presence', 'access_token', 'phx_leave', 'heartbeat', text(r)]), randomJson(r)]);
    case 3: {
      const name = (n: string) => Buffer.from(n).subarray(0, 255).toString('latin1');
      return binaryPush(name(String(r.int(99))), name(String(r.int(99))), name(topic(r)), name(text(r)), Buffer.from(JSON.stringify(randomJson(r)) ?? 'null'), r.pick([0, 1] as const));
    }
    case 4: {
      const bytes = Buffer.alloc(r.pick([0, 1, 6, 7, 40, 300]));
      for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(256);
      if (bytes.length > 0 && r.next() < 0.5) bytes[0] = 3;
      return bytes;
    }
    case 5:
      return JSON.stringify(randomJson(r));
    default:
      return r.pick(['', '[', 'null', '[1,2,3,4,5]', '{"topic":"phoenix"}', '\u0000'.repeat(100)]);
  }
}

/**
 * Resolves once `socket` has answered a heartbeat sent after the fuzz (one socket's frames are
 * handled in turn, so every earlier frame has been), or has closed. The heartbeat is sent again
 * every 200 ms while a socket past its message budget drops it unread.
 */
function drained(socket: RawSocket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearInterval(timer);
      socket.ws.off('message', onMessage);
      resolve();
    };
    const onMessage = (data: Buffer, isBinary: boolean) => {
      if (!isBinary && data.toString().startsWith('[null,"fuzz-drained",')) done();
    };
    const beat = () => {
      if (socket.ws.readyState === socket.ws.OPEN) socket.ws.send(JSON.stringify([null, 'fuzz-drained', 'phoenix', 'heartbeat', {}]));
      else done();
    };
    const timer = setInterval(beat, 200);
    socket.ws.on('message', onMessage);
    socket.ws.once('close', done);
    beat();
  });
}

async function freshSocket(): Promise<RawSocket> {
  const socket = await rawSocket(server);
  // The fuzz only sends; what it is sent is dropped as it comes so nothing piles up.
  socket.ws.removeAllListeners('message');
  return socket;
}

test('600 random and boundary-size frames leave the server serving REST, heartbeats and broadcasts', async () => {
  const r = seededRng(SEED);
  const token = await accessToken(player);
  const sockets = await Promise.all(Array.from({ length: SOCKETS }, freshSocket));
  for (let i = 0; i < FRAMES; i++) {
    const at = i % SOCKETS;
    if (sockets[at]!.ws.readyState !== sockets[at]!.ws.OPEN) sockets[at] = await freshSocket();
    const data = frame(r, token);
    sockets[at]!.ws.send(data, { binary: Buffer.isBuffer(data) });
    // Kept: paced under the socket's message budget, so most frames are read rather than shed.
    if (i % 30 === 29) await sleep(120);
  }
  await Promise.all(sockets.map(drained));
  assert.is(server.child.exitCode, null, 'the server process is still running');

  const member = await rawSocket(server);
  const sender = await rawSocket(server);
  const join = async (socket: RawSocket, payload: Record<string, unknown>) => {
    socket.send(['1', '1', 'realtime:after-fuzz', 'phx_join', payload]);
    return responseOf(await socket.take(replyTo('1'), 5000)).status;
  };
  assert.is(await join(member, { config: { broadcast: { batch: true } } }), 'ok');
  assert.is(await join(sender, { config: {} }), 'ok');
  sender.send([null, '2', 'phoenix', 'heartbeat', {}]);
  assert.equal(responseOf(await sender.take(replyTo('2'))), { status: 'ok', response: {} });
  sender.send(binaryPush('1', '3', 'realtime:after-fuzz', 'pose', Buffer.from('{"x":7}'), 1));
  const heard = readBroadcast((await member.take((f) => Buffer.isBuffer(f) && f[0] === 4)) as Buffer);
  assert.equal(heard.payload, { events: [{ event: 'pose', payload: { x: 7 } }] });
  const read = await player.client.from('game_blocks').select('x').limit(1);
  assert.is(read.error, null);
  assert.is(read.status, 200);
  for (const socket of [...sockets, member, sender]) socket.ws.close();
});

test.run();
