/**
 * Server benchmark: postgres_changes latency and fan-out of the embedded server (a child
 * `node dist/server.mjs` on a temporary DATA_DIR), and a plain `ws` broadcast of the same frames
 * as the baseline. Prints one JSON line per case.
 *   latency: a signed-in supabase-js player inserts a block (a new player every 30 inserts, to stay
 *            inside the per-wallet rate limit), another supabase-js client receives
 *            the INSERT; with 2 and with 100 subscribers (the others raw Phoenix clients, each
 *            with its own JWT). p50/p99 ms, and the insert's REST round trip.
 *   change_latency: the same insert on a database session under the player's claims, from its
 *            COMMIT (synchronous_commit off for that transaction: no disk flush) to the callback.
 *   fanout:  four service_role clients insert blocks in batches at once; rows/s delivered to all 100
 *            subscribers, the server's CPU share (1.0 = one core) over the run and the mean
 *            REST round trip of one batch insert (each writer waits for it before its next).
 *   baseline_ws_*: the same frames (a captured postgres_changes frame) broadcast by a plain `ws`
 *            server process to 100 clients, no database.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import WebSocket from 'ws';
import { keysOf, type TokenKeys } from '../server/auth/keys.js';
import { signInPlayer } from '../test/support/harness.js';
import { subscribeChannel } from '../test/support/live.js';
import { enterAtSpawn, nameOf, tilesInViewOfSpawn } from '../test/support/rules.js';
import { makeDataDir, readJwtSecret, removeDataDir, startServer, type TestServer as Server } from '../test/support/server.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { cpuSeconds, pssMb, serverPids } from './processes.js';
import { QUICK, percentile, printHeader, round, spread } from './stats.js';

const LATENCY_SAMPLES = QUICK ? 60 : 300;
/** Inserts per signed-in player, below the per-wallet burst allowance of the authority rules. */
const INSERTS_PER_PLAYER = 30;
/** `npm start` runs on the bench's DATA_DIR once it holds a world. */
const START_RUNS = QUICK ? 1 : 5;
const FANOUT_SECONDS = QUICK ? 2 : 5;
const BATCH_ROWS = 250;
const SUBSCRIBERS = 100;
/** Service-role clients inserting batches at once in the fan-out case. */
const WRITERS = 4;
const TABLE_BINDING = { event: 'INSERT', schema: 'public', table: 'game_blocks' };

function userToken(keys: TokenKeys, role = 'authenticated'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return keys.sign({ role, sub: crypto.randomUUID(), aud: role, iat: now, exp: now + 3600 });
}

/** One masked client-to-server text frame (RFC 6455 §5.2; the short messages of the bench only). */
function clientTextFrame(text: string): Buffer {
  const body = Buffer.from(text);
  const mask = randomBytes(4);
  const length = body.length < 126 ? Buffer.from([0x81, 0x80 | body.length]) : Buffer.from([0x81, 0x80 | 126, body.length >> 8, body.length & 0xff]);
  for (let i = 0; i < body.length; i++) body[i]! ^= mask[i % 4]!;
  return Buffer.concat([length, mask, body]);
}

/**
 * A raw Phoenix client joined to INSERTs on game_blocks; counts the postgres_changes frames it
 * gets. It speaks WebSocket over a plain TCP socket and reads only each frame's header and first
 * bytes, so that a hundred of them in this process can count a million frames a second: the
 * `ws` client spends a few microseconds and an event on every message, and the bench would
 * measure itself.
 */
async function rawSubscriber(server: Server, token: string): Promise<{ count(): number; last(): string; close(): void }> {
  const url = new URL(`${server.url}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=2.0.0`);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.setNoDelay(true);
  socket.write(
    `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
      + `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let frames = 0;
  let last = '';
  let joined: () => void = () => {};
  const ready = new Promise<void>((resolve) => (joined = resolve));
  let upgraded = false;
  let pending: Buffer = Buffer.alloc(0);
  // The frame being read: payload bytes still to skip, and the first payload bytes seen so far.
  let remaining = 0;
  let head = '';
  let whole: Buffer[] | null = null;
  const endFrame = () => {
    // '[null,null,' starts every postgres_changes push; replies and system messages carry the join ref.
    if (head.startsWith('[n')) {
      frames++;
      if (frames === 1 && whole) last = Buffer.concat(whole).toString();
    } else if (whole && Buffer.concat(whole).includes('Subscribed to PostgreSQL')) joined();
    whole = null;
  };
  socket.on('data', (chunk: Buffer) => {
    let data: Buffer = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    pending = Buffer.alloc(0);
    if (!upgraded) {
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return void (pending = data);
      if (!data.subarray(0, 12).toString().includes('101')) throw new Error(`upgrade refused: ${data.toString()}`);
      upgraded = true;
      data = data.subarray(end + 4);
    }
    let at = 0;
    while (at < data.length) {
      if (remaining > 0) {
        const take = Math.min(remaining, data.length - at);
        if (head.length < 2) head += data.subarray(at, at + Math.min(take, 2 - head.length)).toString('latin1');
        whole?.push(data.subarray(at, at + take));
        remaining -= take;
        at += take;
        if (remaining === 0) endFrame();
        continue;
      }
      if (data.length - at < 2) break;
      let length = data[at + 1]! & 0x7f;
      let headerLength = 2;
      if (length === 126) {
        if (data.length - at < 4) break;
        length = data.readUInt16BE(at + 2);
        headerLength = 4;
      } else if (length === 127) {
        if (data.length - at < 10) break;
        length = Number(data.readBigUInt64BE(at + 2));
        headerLength = 10;
      }
      at += headerLength;
      remaining = length;
      head = '';
      whole = frames === 0 ? [] : null;
      if (length === 0) endFrame();
    }
    if (at < data.length) pending = Buffer.from(data.subarray(at));
  });
  await new Promise<void>((resolve) => {
    const check = setInterval(() => upgraded && (clearInterval(check), resolve()), 1);
  });
  socket.write(clientTextFrame(JSON.stringify(['1', '1', 'realtime:bench', 'phx_join', { config: { postgres_changes: [TABLE_BINDING] }, access_token: token }])));
  await ready;
  return { count: () => frames, last: () => last, close: () => socket.destroy() };
}

function client(server: Server, token?: string): SupabaseClient {
  return createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
    ...(token ? { accessToken: async () => token } : {}),
  });
}

/** The JWT claims a signed-in supabase-js client sends with its requests. */
async function claimsOf(player: Awaited<ReturnType<typeof signInPlayer>>): Promise<string> {
  const { data } = await player.client.auth.getSession();
  return Buffer.from(data.session!.access_token.split('.')[1]!, 'base64url').toString();
}

/**
 * Change latency with `subscribers` subscribers, two ways. `latency`: a player's REST insert
 * until the supabase-js subscriber's callback (HTTP, the rules' triggers and a durable commit
 * included; `rest_p50_ms` is the insert's own round trip). `change_latency`: the same insert
 * made on a database session under the player's role and claims, from its COMMIT until the
 * callback; that transaction alone commits with synchronous_commit off, so the disk flush
 * (a durable commit's, several milliseconds on a slow disk) is left out and what is measured
 * is the live path: NOTIFY, drain, RLS, framing and the socket.
 */
async function latency(server: Server, keys: TokenKeys, subscribers: number): Promise<Record<string, unknown>[]> {
  const perPhase = Math.ceil(LATENCY_SAMPLES / INSERTS_PER_PLAYER);
  const players = await Promise.all(Array.from({ length: 2 * perPhase }, () => signInPlayer(server)));
  const service = client(server, await userToken(keys, 'service_role'));
  const tiles = tilesInViewOfSpawn();
  const receiverToken = await userToken(keys);
  const receiver = client(server, receiverToken);
  await receiver.realtime.setAuth(receiverToken);
  const waiting = new Map<string, (at: number) => void>();
  const channel = receiver.channel('bench-latency').on('postgres_changes', TABLE_BINDING as never, (payload: { new: { x: number; y: number } }) => {
    waiting.get(`${payload.new.x},${payload.new.y}`)?.(performance.now());
  });
  await subscribeChannel(channel);
  const others = await Promise.all(Array.from({ length: subscribers - 1 }, async () => rawSubscriber(server, await userToken(keys))));
  const database = new pg.Client({ host: join(server.dataDir, 'run'), port: 5432, user: 'postgres', database: 'postgres' });
  database.on('error', () => undefined);
  await database.connect();
  await sleep(300);
  const rest: number[] = [];
  const endToEnd: number[] = [];
  const fromCommit: number[] = [];
  for (let i = 0; i < 2 * LATENCY_SAMPLES; i++) {
    // Building needs a fresh presence row (30 s) and happens in view of it: each phase's players enter as it starts.
    if (i % LATENCY_SAMPLES === 0) await Promise.all(players.slice((i / LATENCY_SAMPLES) * perPhase).slice(0, perPhase).map((p) => enterAtSpawn(p)));
    const { x, y } = tiles[i % tiles.length]!;
    const arrived = new Promise<number>((resolve) => waiting.set(`${x},${y}`, resolve));
    const player = players[Math.floor(i / INSERTS_PER_PLAYER)]!;
    const row = { x, y, block_type: 'stone', player_id: player.address, player_name: nameOf(player) };
    if (i < LATENCY_SAMPLES) {
      const start = performance.now();
      const { error } = await player.client.from('game_blocks').insert(row);
      if (error) throw new Error(`insert failed: ${error.message}`);
      rest.push(performance.now() - start);
      endToEnd.push((await arrived) - start);
    } else {
      await database.query('begin');
      await database.query(
        `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true), set_config('synchronous_commit', 'off', true)`,
        [await claimsOf(player)],
      );
      await database.query('insert into public.game_blocks (x, y, block_type, player_id, player_name) values ($1, $2, $3, $4, $5)', Object.values(row));
      const start = performance.now();
      await database.query('commit');
      fromCommit.push((await arrived) - start);
    }
    waiting.delete(`${x},${y}`);
    // The tile is cleared for a later sample, outside the measured time.
    await service.from('game_blocks').delete().eq('x', x).eq('y', y);
    await sleep(5);
  }
  await database.end();
  for (const other of others) other.close();
  await receiver.removeAllChannels();
  const line = (name: string, samples: number[]) => ({ bench: 'server', case: name, subscribers, samples: samples.length, p50_ms: round(percentile(samples, 50)), p99_ms: round(percentile(samples, 99)) });
  return [
    { ...line('latency', endToEnd), rest_p50_ms: round(percentile(rest, 50)), rest_p99_ms: round(percentile(rest, 99)) },
    { ...line('change_latency', fromCommit), target_p50_ms: 3, target_p99_ms: 15 },
  ];
}

/** Proportional set size in MB of the server and every PostgreSQL process (the postmaster's children included). */
async function serverPss(server: Server): Promise<{ total: number; node: number; postgres: number; processes: number }> {
  const [node, ...postgres] = (await serverPids(server)).map(pssMb);
  const postgresTotal = postgres.reduce((sum, mb) => sum + mb, 0);
  return { total: round(node! + postgresTotal, 1), node: round(node!, 1), postgres: round(postgresTotal, 1), processes: postgres.length + 1 };
}

/** `npm start` on an existing DATA_DIR (the build up to date): ms until `/` answers 200. */
async function startToServing(dataDir: string): Promise<number> {
  const port = String(20_000 + Math.floor(Math.random() * 20_000));
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], { env: { ...process.env, PORT: port, DATA_DIR: dataDir }, stdio: 'ignore', detached: true });
  try {
    return await waitFor(async () => (await fetch(`http://localhost:${port}/`).then((r) => r.ok, () => false)) && performance.now() - started, {
      timeout: 30_000,
      message: 'npm start to serve /',
    });
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function fanout(server: Server, keys: TokenKeys, row: number): Promise<{ line: Record<string, unknown>; frame: string }> {
  const service = client(server, await userToken(keys, 'service_role'));
  const subs = await Promise.all(Array.from({ length: SUBSCRIBERS }, async () => rawSubscriber(server, await userToken(keys))));
  await sleep(300);
  const cpuBefore = cpuSeconds(server.child.pid!);
  const start = performance.now();
  let rows = 0;
  let batches = 0;
  let insertMs = 0;
  // WRITERS clients insert at once, each waiting for its batch before the next, on distinct tiles.
  const write = async () => {
    while (performance.now() - start < FANOUT_SECONDS * 1000) {
      const first = rows;
      rows += BATCH_ROWS;
      // Distinct tiles inside the world bounds: rows of 4000 starting at `row`.
      const batch = Array.from({ length: BATCH_ROWS }, (_, i) => {
        const n = first + i;
        return { x: 10 + (n % 4000), y: row + Math.floor(n / 4000), block_type: 'stone', player_id: 'bench', player_name: 'Bench' };
      });
      const sent = performance.now();
      const { error } = await service.from('game_blocks').insert(batch);
      if (error) throw new Error(`batch insert failed: ${error.message}`);
      insertMs += performance.now() - sent;
      batches++;
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, write));
  const want = rows * SUBSCRIBERS;
  const total = () => subs.reduce((sum, s) => sum + s.count(), 0);
  await waitFor(() => total() >= want, { timeout: 30_000, interval: 2, message: () => `${want} frames at ${SUBSCRIBERS} subscribers, ${total()} got; ${server.output().slice(-2000)}` });
  const seconds = (performance.now() - start) / 1000;
  const cpu = (cpuSeconds(server.child.pid!)) - cpuBefore;
  const frame = subs[0]!.last();
  for (const s of subs) s.close();
  return {
    frame,
    line: {
      bench: 'server',
      case: 'fanout',
      subscribers: SUBSCRIBERS,
      rows,
      delivered_frames: total(),
      changes_per_s: round(total() / SUBSCRIBERS / seconds, 0),
      frames_per_s: round(total() / seconds, 0),
      server_cpu_share: round(cpu / seconds),
      writers: WRITERS,
      batch_insert_ms: round(insertMs / batches),
      target_changes_per_s: 10_000,
    },
  };
}

/**
 * A plain `ws` server in its own process: a message on /control of the form {n, frame} is sent
 * `n` times to every other client, one `send` per client per frame.
 */
const BASELINE_SERVER = `
import { WebSocketServer } from 'ws';
const wss = new WebSocketServer({ port: 0, perMessageDeflate: false });
wss.on('listening', () => console.log(wss.address().port));
wss.on('connection', (ws, req) => {
  if (req.url !== '/control') return;
  ws.on('message', (data) => {
    const { n, frame } = JSON.parse(data.toString());
    for (let k = 0; k < n; k++) for (const c of wss.clients) if (c !== ws) c.send(frame);
  });
});`;

/** The same frames through {@link BASELINE_SERVER}: latency to one client, then rows/s to 100. */
async function baseline(frame: string): Promise<Record<string, unknown>[]> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', BASELINE_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
  const open = (path: string) => {
    const ws = new WebSocket(`ws://localhost:${port}${path}`);
    return new Promise<WebSocket>((resolve) => ws.once('open', () => resolve(ws)));
  };
  const control = await open('/control');
  const counts: number[] = Array.from({ length: SUBSCRIBERS }, () => 0);
  let onFirst: (at: number) => void = () => {};
  const sockets = await Promise.all(
    counts.map(async (_, i) => {
      const ws = await open('/');
      ws.on('message', () => {
        counts[i]!++;
        if (i === 0) onFirst(performance.now());
      });
      return ws;
    }),
  );
  await sleep(200);
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const arrived = new Promise<number>((resolve) => (onFirst = resolve));
    const start = performance.now();
    control.send(JSON.stringify({ n: 1, frame }));
    samples.push((await arrived) - start);
    await sleep(5);
  }
  onFirst = () => {};
  counts.fill(0);
  const total = () => counts.reduce((a, b) => a + b, 0);
  const cpuBefore = cpuSeconds(child.pid!);
  const start = performance.now();
  let sent = 0;
  while (performance.now() - start < FANOUT_SECONDS * 1000) {
    control.send(JSON.stringify({ n: BATCH_ROWS, frame }));
    sent += BATCH_ROWS;
    // Same pacing as the database run: the next batch goes once the previous one has arrived.
    await waitFor(() => total() >= sent * SUBSCRIBERS, { timeout: 30_000, interval: 1, message: `${sent * SUBSCRIBERS} baseline frames` });
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = (cpuSeconds(child.pid!)) - cpuBefore;
  for (const ws of [...sockets, control]) ws.close();
  child.kill('SIGTERM');
  return [
    { bench: 'server', case: 'baseline_ws_latency', subscribers: SUBSCRIBERS, samples: samples.length, p50_ms: round(percentile(samples, 50), 3), p99_ms: round(percentile(samples, 99), 3) },
    {
      bench: 'server',
      case: 'baseline_ws_fanout',
      subscribers: SUBSCRIBERS,
      changes_per_s: round(sent / seconds, 0),
      frames_per_s: round(total() / seconds, 0),
      server_cpu_share: round(cpu / seconds),
      frame_bytes: Buffer.byteLength(frame),
    },
  ];
}

printHeader('server', { warmups: 0, runs: 1, latencySamples: LATENCY_SAMPLES, fanoutSeconds: FANOUT_SECONDS, startRuns: START_RUNS });
// The DATA_DIR outlives this server: `npm start` runs on it afterwards.
const server = await startServer({ dataDir: await makeDataDir() });
try {
  await sleep(2000);
  console.log(JSON.stringify({ bench: 'server', case: 'idle_pss_mb', ...(await serverPss(server)), target_mb: 250 }));
  const keys = await keysOf(Buffer.from(await readJwtSecret(server), 'base64url'));
  for (const subscribers of [2, SUBSCRIBERS]) for (const row of await latency(server, keys, subscribers)) console.log(JSON.stringify(row));
  const { line, frame } = await fanout(server, keys, 200);
  console.log(JSON.stringify(line));
  for (const row of await baseline(frame)) console.log(JSON.stringify(row));
} finally {
  await server.stop();
}
const starts: number[] = [];
for (let i = 0; i < START_RUNS; i++) starts.push(await startToServing(server.dataDir));
console.log(JSON.stringify({ bench: 'server', case: 'npm_start_to_serving', existing_data_dir: true, ...spread(starts, 0), target_ms: 3000 }));
await removeDataDir(server.dataDir);
process.exit(0);
