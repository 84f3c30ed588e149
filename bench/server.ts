/**
 * Server benchmark: postgres_changes latency and fan-out of the embedded server (a child
 * `node dist/server.mjs` on a temporary DATA_DIR), and a plain `ws` broadcast of the same frames
 * as the baseline. Prints one JSON line per case.
 *   latency: a signed-in supabase-js player inserts a block (a new player every 30 inserts, to stay
 *            inside the per-wallet rate limit), another supabase-js client receives
 *            the INSERT; with 2 and with 100 subscribers (the others raw Phoenix clients, each
 *            with its own JWT). p50/p99 ms.
 *   fanout:  a service_role client inserts blocks in batches; rows/s delivered to all 100
 *            subscribers, and the server's CPU share (1.0 = one core) over the run.
 *   baseline_ws_*: the same frames (a captured postgres_changes frame) broadcast by a plain `ws`
 *            server process to 100 clients, no database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { loadKeys, type TokenKeys } from '../server/auth/keys.js';
import { signInPlayer } from '../test/server/harness.js';
import { percentile, round } from './stats.js';

const LATENCY_SAMPLES = 300;
/** Inserts per signed-in player, below the per-wallet burst allowance of the authority rules. */
const INSERTS_PER_PLAYER = 30;
const FANOUT_SECONDS = 5;
const BATCH_ROWS = 250;
const SUBSCRIBERS = 100;
const TABLE_BINDING = { event: 'INSERT', schema: 'public', table: 'game_blocks' };

interface Server {
  url: string;
  anonKey: string;
  child: ChildProcess;
  dataDir: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startServer(): Promise<Server> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tessera-bench-'));
  const child = spawn(process.execPath, ['dist/server.mjs'], { env: { ...process.env, PORT: '0', DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const { supabaseAnonKey } = (await (await fetch(`${url}/config.json`)).json()) as { supabaseAnonKey: string };
  return { url, anonKey: supabaseAnonKey, child, dataDir };
}

/** CPU seconds (user + system) used so far by process `pid`. */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function userToken(keys: TokenKeys, role = 'authenticated'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return keys.sign({ role, sub: crypto.randomUUID(), aud: role, iat: now, exp: now + 3600 });
}

/** A raw Phoenix client joined to INSERTs on game_blocks; counts the change frames it gets. */
async function rawSubscriber(server: Server, token: string): Promise<{ count(): number; last(): string; close(): void }> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=2.0.0`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let frames = 0;
  let last = '';
  let joined: () => void = () => {};
  const ready = new Promise<void>((resolve) => (joined = resolve));
  ws.on('message', (data: Buffer) => {
    // '[null,null,' starts every postgres_changes push; replies and system messages carry the join ref.
    if (data[1] === 0x6e) {
      frames++;
      if (frames === 1) last = data.toString();
    } else if (data.includes('Subscribed to PostgreSQL')) joined();
  });
  ws.send(JSON.stringify(['1', '1', 'realtime:bench', 'phx_join', { config: { postgres_changes: [TABLE_BINDING] }, access_token: token }]));
  await ready;
  return { count: () => frames, last: () => last, close: () => ws.close() };
}

function client(server: Server, token?: string): SupabaseClient {
  return createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
    ...(token ? { accessToken: async () => token } : {}),
  });
}

async function latency(server: Server, keys: TokenKeys, subscribers: number, row: number): Promise<Record<string, unknown>> {
  const players = await Promise.all(Array.from({ length: Math.ceil(LATENCY_SAMPLES / INSERTS_PER_PLAYER) }, () => signInPlayer(server)));
  const receiverToken = await userToken(keys);
  const receiver = client(server, receiverToken);
  await receiver.realtime.setAuth(receiverToken);
  const waiting = new Map<number, (at: number) => void>();
  const channel = receiver.channel('bench-latency').on('postgres_changes', TABLE_BINDING as never, (payload: { new: { x: number } }) => {
    waiting.get(payload.new.x)?.(performance.now());
  });
  await new Promise<void>((resolve) => channel.subscribe((status) => status === 'SUBSCRIBED' && resolve()));
  const others = await Promise.all(Array.from({ length: subscribers - 1 }, async () => rawSubscriber(server, await userToken(keys))));
  await sleep(300);
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const x = 10 + i;
    const arrived = new Promise<number>((resolve) => waiting.set(x, resolve));
    const player = players[Math.floor(i / INSERTS_PER_PLAYER)]!;
    const start = performance.now();
    const { error } = await player.client.from('game_blocks').insert({ x, y: row, block_type: 'stone', player_id: player.address, player_name: 'Bench' });
    if (error) throw new Error(`insert failed: ${error.message}`);
    samples.push((await arrived) - start);
    waiting.delete(x);
    await sleep(5);
  }
  for (const other of others) other.close();
  await receiver.removeAllChannels();
  return { bench: 'server', case: 'latency', subscribers, samples: samples.length, p50_ms: round(percentile(samples, 50)), p99_ms: round(percentile(samples, 99)) };
}

async function fanout(server: Server, keys: TokenKeys, row: number): Promise<{ line: Record<string, unknown>; frame: string }> {
  const service = client(server, await userToken(keys, 'service_role'));
  const subs = await Promise.all(Array.from({ length: SUBSCRIBERS }, async () => rawSubscriber(server, await userToken(keys))));
  await sleep(300);
  const cpuBefore = await cpuSeconds(server.child.pid!);
  const start = performance.now();
  let rows = 0;
  while (performance.now() - start < FANOUT_SECONDS * 1000) {
    // Distinct tiles inside the world bounds: rows of 4000 starting at `row`.
    const batch = Array.from({ length: BATCH_ROWS }, (_, i) => {
      const n = rows + i;
      return { x: 10 + (n % 4000), y: row + Math.floor(n / 4000), block_type: 'stone', player_id: 'bench', player_name: 'Bench' };
    });
    const { error } = await service.from('game_blocks').insert(batch);
    if (error) throw new Error(`batch insert failed: ${error.message}`);
    rows += BATCH_ROWS;
  }
  const want = rows * SUBSCRIBERS;
  const total = () => subs.reduce((sum, s) => sum + s.count(), 0);
  const deadline = performance.now() + 30_000;
  while (total() < want && performance.now() < deadline) await sleep(2);
  const seconds = (performance.now() - start) / 1000;
  const cpu = (await cpuSeconds(server.child.pid!)) - cpuBefore;
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
  const cpuBefore = await cpuSeconds(child.pid!);
  const start = performance.now();
  let sent = 0;
  while (performance.now() - start < FANOUT_SECONDS * 1000) {
    control.send(JSON.stringify({ n: BATCH_ROWS, frame }));
    sent += BATCH_ROWS;
    // Same pacing as the database run: the next batch goes once the previous one has arrived.
    while (total() < sent * SUBSCRIBERS) await sleep(1);
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = (await cpuSeconds(child.pid!)) - cpuBefore;
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

const server = await startServer();
try {
  const keys = await loadKeys(server.dataDir);
  console.log(JSON.stringify(await latency(server, keys, 2, 100)));
  console.log(JSON.stringify(await latency(server, keys, SUBSCRIBERS, 101)));
  const { line, frame } = await fanout(server, keys, 200);
  console.log(JSON.stringify(line));
  for (const row of await baseline(frame)) console.log(JSON.stringify(row));
} finally {
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
  await rm(server.dataDir, { recursive: true, force: true });
}
process.exit(0);
