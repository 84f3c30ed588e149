/**
 * Floods benchmark: the hostile floods of the live layer against the embedded server (started as
 * bench/server.ts does, through test/support), each while another player reads over REST.
 * Prints one JSON line per flood with the medians of the runs: the server's RSS (the node
 * process) before, at its peak during, and after the flood, and the other player's REST p95.
 * Targets: RSS within idle + 150 MB, REST p95 < 50 ms. `rest_max_ms` is the slowest read, which
 * shows a single stall of the whole server that a p95 of sequential reads hides; `server_cpu_ms`
 * the CPU time the server process spent during the flood, which the machine's other load does
 * not change.
 * `--case=<name>[,...]` runs only the named floods.
 *   channels: one socket asks for 5,000 channels, stops reading, and a player keeps posing on them.
 *   poses:    a signed-in player sends 5,000 poses with invented ids on its region.
 *   unknown:  200 anon joins of postgres_changes on tables that do not exist (10 sockets).
 *   messages: 20 anon sockets each send 2,000 broadcasts on one topic that 10 sockets listen to.
 *   long-topic: 20 anon sockets join a 300-byte public topic with `broadcast.batch` and broadcast on
 *             it (once a crash of the whole server), while batch members of a 255-byte topic and of
 *             an ordinary one are sent 200 broadcasts each.
 *   bindings: one anon socket joins two channels of 16,000 postgres_changes bindings (refused), and
 *             10 signed-in sockets hold the most allowed (5 channels of 100 filtered bindings) while
 *             a player places (then removes) 10 blocks that every binding is matched against.
 *   patterns: 20 anon sockets ask for like/match filters on voice clips' audio (refused as REST
 *             refuses them) and 20 for eq/is filters on it, while a player posts two 1 MB voice clips.
 *   refresh:  3,000 refresh-token grants, 100 on each of 30 sessions' tokens, 300 in flight
 *             (the per-address limits are the test servers', so the per-session bound is measured).
 *   joins:    195 anon sockets of one address each send 20 private joins a second (a new region
 *             topic each) for 4 s, 15,600 joins, all refused; prints how many were refused and
 *             how many authorisation transactions they cost (`/metrics`).
 *   joins-signed-in: the same from a signed-in wallet that is not in the world (its token in each
 *             join), so every join is a read check in the database, refused there.
 *   heartbeats: a signed-in wallet upserts its presence row as fast as it can, 16 requests in
 *             flight, for a few seconds (the database rate: a burst of 10, then 6 a second),
 *             while a player follows game_players' changes; prints accepted and refused
 *             heartbeats and the changes the follower heard.
 * Then, on a server of its own over a world of 60,000 blocks and 50 MB of stored voice clips
 * (written as the database owner before it starts), REST floods of 16 requests in flight at once
 * from one signed-in stranger for a few seconds (docs/rest-bounds.md):
 *   any-list-2600: player_id=lt(any).{2,600 values} on game_blocks (refused, TS102).
 *   any-list-100:  the longest list still served, 100 values, matching no row.
 *   plain-scan:    player_id=lt.0, the same scan without a list: what any-list-100 is measured against.
 *   fts-clips:     audio_data=fts.<words> on game_voice_messages (refused, TS101).
 *   fts-names:     the same search on player_name, a bounded column (served).
 */
import { metricSamples } from '../test/support/metrics.js';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import WebSocket from 'ws';
import { signInPlayer, type TestPlayer } from '../test/support/harness.js';
import { accessToken } from '../test/support/live.js';
import { enterAtSpawn, nameOf, tilesInViewOfSpawn } from '../test/support/rules.js';
import { makeDataDir, removeDataDir, startServer, type TestServer as Server } from '../test/support/server.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { startDatabase } from '../server/db/index.js';
import { QUICK, median, percentile, pick, printHeader, round } from './stats.js';

const RUNS = QUICK ? 1 : 3;
/** `--case=<name>[,<name>...]` runs only those floods (all when absent). */
const only = process.argv.find((arg) => arg.startsWith('--case='))?.slice('--case='.length).split(',');
/** Whether the flood `name` is to run. */
const chosen = (name: string) => !only || only.includes(name);

/** CPU time (user and system) process `pid` has used so far, in ms. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of process `pid`, in MB. */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** A raw Phoenix socket (vsn 2.0.0) that counts what it receives and can stop reading. */
async function socket(server: Server, onFrame: (data: Buffer) => void = () => {}): Promise<WebSocket> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=2.0.0`);
  ws.on('message', onFrame);
  ws.on('error', () => {});
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return ws;
}

/** A heartbeat answered once the socket's budget refills: every frame sent before it was handled. */
async function barrier(s: { request(frame: unknown[]): Promise<unknown> }): Promise<void> {
  let n = 0;
  await waitFor(() => Promise.race([s.request([null, `done${++n}`, 'phoenix', 'heartbeat', {}]).then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 200))]), {
    timeout: 10_000,
    interval: 0,
    message: 'a heartbeat answered after the flood',
  });
}

/** Sends a frame and resolves with the reply to `ref`. */
function request(ws: WebSocket, frame: unknown[], replies: Map<string, (reply: unknown) => void>): Promise<unknown> {
  return new Promise((resolve) => {
    replies.set(String(frame[1]), resolve);
    ws.send(JSON.stringify(frame));
  });
}

async function replySocket(server: Server): Promise<{ ws: WebSocket; request(frame: unknown[]): Promise<unknown> }> {
  const replies = new Map<string, (reply: unknown) => void>();
  const ws = await socket(server, (data) => {
    if (data[0] !== 0x5b) return;
    const frame = JSON.parse(data.toString()) as unknown[];
    if (frame[3] === 'phx_reply') replies.get(String(frame[1]))?.(frame[4]);
  });
  return { ws, request: (frame) => request(ws, frame, replies) };
}

/**
 * The other player's client, in its own process so that the flooding code here cannot delay it:
 * reads one after another until told to stop on stdin, then prints their latencies in ms.
 */
const PROBE = `
const [url, apikey, token] = process.argv.slice(1);
const times = [];
let done = false;
process.stdin.on('data', () => (done = true));
(async () => {
  await fetch(url + '/rest/v1/game_players?select=player_id&limit=1', { headers: { apikey, authorization: 'Bearer ' + token } }).then((r) => r.arrayBuffer());
  process.stdout.write('ready\\n');
  while (!done || times.length < 20) {
    const started = performance.now();
    const response = await fetch(url + '/rest/v1/game_players?select=player_id,x,y&limit=50', { headers: { apikey, authorization: 'Bearer ' + token } });
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  process.stdout.write(JSON.stringify(times));
  process.exit(0);
})();`;

/** Starts the REST probe; `stop()` resolves with its latencies. */
async function restProbe(server: Server, token: string): Promise<{ stop(): Promise<number[]> }> {
  const child = spawn(process.execPath, ['-e', PROBE, server.url, server.anonKey, token], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Warmed up (its first request opens the connection) before the flood starts.
  await waitFor(() => out.startsWith('ready\n'), { timeout: 10_000, message: 'the REST probe' });
  out = '';
  return {
    async stop() {
      child.stdin.end('stop');
      await exited;
      return JSON.parse(out) as number[];
    },
  };
}

/** Runs `flood` while probing REST and sampling RSS; returns the figures of one run. */
async function measure(server: Server, bystander: string, flood: () => Promise<() => void>) {
  const pid = server.child.pid!;
  const before = await rssMb(pid);
  const cpuBefore = await cpuMs(pid);
  let peak = before;
  const sampler = setInterval(() => void rssMb(pid).then((mb) => (peak = Math.max(peak, mb))), 50);
  const probe = await restProbe(server, bystander);
  const cleanup = await flood();
  const times = await probe.stop();
  const cpu = (await cpuMs(pid)) - cpuBefore;
  clearInterval(sampler);
  peak = Math.max(peak, await rssMb(pid));
  cleanup();
  // Sockets closed: wait until the server let go of them (RSS no longer falling over 200 ms).
  let after = await rssMb(pid);
  await waitFor(
    async () => {
      const next = await rssMb(pid);
      const settled = Math.abs(next - after) < 1;
      after = next;
      return settled;
    },
    { timeout: 10_000, interval: 200, message: 'RSS to settle' },
  ).catch(() => {});
  return { before, peak, after, p95: percentile(times, 95), max: Math.max(...times), reads: times.length, cpu };
}

/** The figures every flood case prints: memory against the idle server and the bystander's reads, medians over `runs`. */
function floodFigures(runs: ReadonlyArray<Awaited<ReturnType<typeof measure>>>, idle: number) {
  const med = (pick: (r: (typeof runs)[number]) => number) => round(median(runs.map(pick)));
  return {
    idle_rss_mb: round(idle),
    rss_before_mb: med((r) => r.before),
    rss_peak_mb: med((r) => r.peak),
    rss_after_mb: med((r) => r.after),
    rest_p95_ms: med((r) => r.p95),
    rest_reads: med((r) => r.reads),
    within_targets: runs.every((r) => r.peak <= idle + 150 && r.p95 < 50),
  };
}

/** 5,000 joins on one socket, which then stops reading while a player poses on its channels for 3 s. */
function channelsFlood(server: Server, poser: TestPlayer) {
  return async () => {
    const hog = await socket(server);
    const raw = (hog as unknown as { _socket: import('node:net').Socket })._socket;
    for (let i = 0; i < 5000; i++) hog.send(JSON.stringify([`${i}`, `${i}`, `realtime:hog-${i % 100}`, 'phx_join', {}]));
    raw.pause();
    const sender = await replySocket(server);
    await sender.request(['s', 's0', 'realtime:hog-0', 'phx_join', { access_token: await accessToken(poser) }]);
    const until = performance.now() + 3000;
    let n = 0;
    await waitFor(
      () => {
        for (let i = 0; i < 5; i++) sender.ws.send(JSON.stringify(['s', null, 'realtime:hog-0', 'broadcast', { type: 'broadcast', event: 'pose', payload: { n: n++, pad: 'x'.repeat(2000) } }]));
        return performance.now() >= until;
      },
      { timeout: 5000, interval: 50 },
    );
    return () => {
      hog.terminate();
      sender.ws.close();
    };
  };
}

/** 5,000 poses with invented ids from one signed-in player in its region, as fast as it can send. */
function posesFlood(server: Server, sender: TestPlayer, listener: TestPlayer) {
  return async () => {
    const topic = 'realtime:region:0:0';
    let heard = 0;
    const listen = await replySocket(server);
    listen.ws.on('message', (_data: Buffer, binary: boolean) => binary && heard++);
    await listen.request(['l', 'l0', topic, 'phx_join', { config: { private: true }, access_token: await accessToken(listener) }]);
    const send = await replySocket(server);
    await send.request(['s', 's0', topic, 'phx_join', { config: { private: true, broadcast: { ack: true } }, access_token: await accessToken(sender) }]);
    for (let i = 0; i < 5000; i++) {
      send.ws.send(JSON.stringify(['s', `p${i}`, topic, 'broadcast', { type: 'broadcast', event: 'pose', payload: { id: `invented-${i}`, x: i, y: 0 } }]));
    }
    await barrier(send);
    await barrier(listen);
    console.error(`poses: ${heard} of 5000 reached the listener`);
    return () => {
      listen.ws.close();
      send.ws.close();
    };
  };
}

/** 200 anon joins of postgres_changes on missing tables, 20 on each of 10 sockets. */
function unknownFlood(server: Server) {
  return async () => {
    const sockets = await Promise.all(Array.from({ length: 10 }, () => replySocket(server)));
    const started = performance.now();
    await Promise.all(
      sockets.flatMap((s, n) =>
        Array.from({ length: 20 }, (_, i) =>
          s.request([`${i}`, `${i}`, `realtime:u-${n}-${i}`, 'phx_join', { config: { postgres_changes: [{ event: '*', schema: 'public', table: `missing_${n}_${i}` }] } }]),
        ),
      ),
    );
    console.error(`unknown: 200 joins answered in ${round(performance.now() - started)} ms`);
    return () => sockets.forEach((s) => s.ws.close());
  };
}

/** 20 anon sockets each send 2,000 broadcasts on one topic that 10 sockets listen to. */
function messagesFlood(server: Server) {
  return async () => {
    const listeners = await Promise.all(Array.from({ length: 10 }, () => replySocket(server)));
    await Promise.all(listeners.map((l, n) => l.request([`${n}`, 'j', 'realtime:crowd', 'phx_join', {}])));
    const senders = await Promise.all(Array.from({ length: 20 }, () => replySocket(server)));
    await Promise.all(senders.map((s, n) => s.request([`${n}`, 'j', 'realtime:crowd', 'phx_join', {}])));
    for (const [n, s] of senders.entries()) {
      for (let i = 0; i < 2000; i++) s.ws.send(JSON.stringify([`${n}`, null, 'realtime:crowd', 'broadcast', { type: 'broadcast', event: 'm', payload: { i } }]));
    }
    await Promise.all(senders.map((s) => barrier(s)));
    return () => [...listeners, ...senders].forEach((s) => s.ws.close());
  };
}

/** Joins `topic` on `s` with `payload`; resolves with the reply's status. */
async function joined(s: { request(frame: unknown[]): Promise<unknown> }, ref: string, topic: string, payload: Record<string, unknown>): Promise<string> {
  return ((await s.request([ref, ref, topic, 'phx_join', payload])) as { status: string }).status;
}

/** A binary user broadcast push (kind 3) with a JSON payload, as realtime-js sends it. */
function push(topic: string, event: string, json: string): Buffer {
  const parts = ['1', '', topic, event].map((part) => Buffer.from(part));
  return Buffer.concat([Buffer.from([3, ...parts.map((part) => part.length), 0, 1]), ...parts, Buffer.from(json)]);
}

/**
 * 20 anon sockets join a 300-byte topic with batches and broadcast on it; a 255-byte topic and an
 * ordinary one each have a batch member and a sender of 200 broadcasts. Fails if the server stops
 * or a member misses its batches.
 */
function longTopicFlood(server: Server) {
  return async () => {
    const long = `realtime:${'x'.repeat(300)}`;
    const hostile = await Promise.all(Array.from({ length: 20 }, () => replySocket(server)));
    const statuses = await Promise.all(hostile.map((s) => joined(s, 'j', long, { config: { broadcast: { batch: true } } })));
    for (const s of hostile) for (let i = 0; i < 50; i++) s.ws.send(JSON.stringify(['j', null, long, 'broadcast', { type: 'broadcast', event: 'pose', payload: { i } }]));
    let batches = 0;
    const members: Awaited<ReturnType<typeof replySocket>>[] = [];
    const senders: Awaited<ReturnType<typeof replySocket>>[] = [];
    for (const topic of [`realtime:${'y'.repeat(246)}`, 'realtime:honest']) {
      const member = await replySocket(server);
      member.ws.on('message', (_data: Buffer, binary: boolean) => binary && batches++);
      await joined(member, 'm', topic, { config: { broadcast: { batch: true } } });
      const sender = await replySocket(server);
      await joined(sender, 's', topic, {});
      for (let i = 0; i < 200; i++) sender.ws.send(push(topic, 'pose', JSON.stringify({ i })));
      members.push(member);
      senders.push(sender);
    }
    await Promise.all([...hostile, ...senders].map((s) => barrier(s)));
    await waitFor(() => batches > 0 && server.child.exitCode === null, { timeout: 5000, message: 'batches after the long-topic joins' });
    console.error(`long-topic: ${statuses.filter((status) => status === 'error').length} of 20 long joins refused, ${batches} batches reached the 2 members, server running: ${server.child.exitCode === null}`);
    return () => [...hostile, ...members, ...senders].forEach((s) => s.ws.close());
  };
}

/**
 * One anon socket joins two channels of 16,000 bindings; 10 signed-in sockets each hold 5 channels
 * of 100 filtered bindings on blocks (the most a socket may) while a player places 10 blocks.
 */
function bindingsFlood(server: Server, holder: TestPlayer, writer: TestPlayer) {
  return async () => {
    const hostile = await replySocket(server);
    const huge = { config: { postgres_changes: Array(16_000).fill({ event: '*', schema: 'public', table: 'game_blocks' }) } };
    const started = performance.now();
    const refused = await Promise.all([joined(hostile, 'a', 'realtime:b-a', huge), joined(hostile, 'b', 'realtime:b-b', huge)]);
    console.error(`bindings: two 16,000-binding joins answered ${refused.join(', ')} in ${round(performance.now() - started)} ms`);
    const token = await accessToken(holder);
    let changes = 0;
    const holders = await Promise.all(Array.from({ length: 10 }, () => replySocket(server)));
    for (const s of holders) s.ws.on('message', (data: Buffer) => data.includes(',"postgres_changes",{"ids"') && changes++);
    const bindings = Array.from({ length: 100 }, (_, i) => ({ event: 'INSERT', schema: 'public', table: 'game_blocks', filter: `x=neq.${-100 - i}` }));
    const statuses = await Promise.all(holders.flatMap((s, n) => Array.from({ length: 5 }, (_, c) => joined(s, `${c}`, `realtime:h-${n}-${c}`, { access_token: token, config: { postgres_changes: bindings } }))));
    const tiles = tilesInViewOfSpawn().slice(0, 10);
    for (const { x, y } of tiles) await writer.client.from('game_blocks').insert({ x, y, block_type: 'stone', player_id: writer.address, player_name: nameOf(writer) });
    await waitFor(() => changes >= tiles.length * 50, { timeout: 10_000, message: 'every block on every channel' }).catch(() => {});
    for (const { x, y } of tiles) await writer.client.from('game_blocks').delete().eq('x', x).eq('y', y);
    console.error(`bindings: ${statuses.filter((status) => status === 'ok').length} of 50 channels of 100 bindings joined, ${changes} of ${tiles.length * 50} changes delivered`);
    return () => [hostile, ...holders].forEach((s) => s.ws.close());
  };
}

/** 20 anon sockets ask for like/match filters on audio_data, 20 for eq/is ones, while a player posts 1 MB voice clips. */
function patternsFlood(server: Server, poster: TestPlayer) {
  return async () => {
    const sockets = await Promise.all(Array.from({ length: 40 }, () => replySocket(server)));
    const errors: string[] = [];
    for (const s of sockets) {
      s.ws.on('message', (data: Buffer) => {
        if (data[0] !== 0x5b) return;
        const frame = JSON.parse(data.toString()) as [unknown, unknown, string, string, { status?: string; message?: string }];
        if (frame[3] === 'system' && frame[4].status === 'error') errors.push(frame[4].message!);
      });
    }
    const filters = ['audio_data=like.%A%A%A%A%B', 'audio_data=match.^(A|AA)+$', 'audio_data=eq.AAAA', 'audio_data=is.null'];
    await Promise.all(
      sockets.map((s, n) =>
        joined(s, 'j', `realtime:p-${n}`, {
          config: { postgres_changes: Array.from({ length: 100 }, () => ({ event: 'INSERT', schema: 'public', table: 'game_voice_messages', filter: filters[n % 4] })) },
        }),
      ),
    );
    const clip = 'A'.repeat(999_996);
    let posted = 0;
    for (let i = 0; i < 2; i++) {
      const { error } = await poster.client.from('game_voice_messages').insert({ player_id: poster.address, player_name: nameOf(poster), audio_data: clip, x: 0, y: 0 });
      if (!error) posted++;
      await sleep(250);
    }
    console.error(`patterns: ${errors.length} of 20 pattern joins refused (${errors[0]?.split(' (')[0]}), ${posted} clips of 1 MB posted`);
    return () => sockets.forEach((s) => s.ws.close());
  };
}

/** Read checks of private channels answered so far, by `database` (a transaction) and `catalogue` (none), from `/metrics`. */
async function joinAuthorizations(server: Server): Promise<{ database: number; catalogue: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const count = (by: string) => metricSamples(text).get(`tessera_realtime_join_authorizations_total{answered_by="${by}"}`) ?? NaN;
  return { database: count('database'), catalogue: count('catalogue') };
}

/**
 * 195 sockets of one address each send 20 private joins a second (5 every 250 ms, each on a topic
 * of its own) for 4 s, with `token` as each join's access token (the anon key when null); waits
 * for every reply and tells how they were answered and what they cost in read checks.
 */
function joinsFlood(server: Server, name: string, token: string | null) {
  return async () => {
    const SOCKETS = 195;
    const TICKS = 16;
    const replies = new Map<string, number>();
    let answered = 0;
    const sockets = await Promise.all(
      Array.from({ length: SOCKETS }, () =>
        socket(server, (data) => {
          if (data[0] !== 0x5b) return;
          const frame = JSON.parse(data.toString()) as [unknown, unknown, string, string, { status: string; response: { reason?: string } }];
          if (frame[3] !== 'phx_reply') return;
          const reason = frame[4].status === 'ok' ? 'ok' : (frame[4].response.reason ?? '').replace(/topic: .*$/, 'topic: <topic>');
          replies.set(reason, (replies.get(reason) ?? 0) + 1);
          answered++;
        }),
      ),
    );
    const before = await joinAuthorizations(server);
    const payload = { config: { private: true }, ...(token ? { access_token: token } : {}) };
    for (let tick = 0; tick < TICKS; tick++) {
      for (const [n, ws] of sockets.entries()) {
        for (let i = 0; i < 5; i++) ws.send(JSON.stringify([`${tick}-${i}`, `${tick}-${i}`, `realtime:region:${n}:${tick * 5 + i}`, 'phx_join', payload]));
      }
      await sleep(250);
    }
    const sent = SOCKETS * TICKS * 5;
    await waitFor(() => answered >= sent, { timeout: 60_000, interval: 50, message: 'every join answered' }).catch(() => {});
    const after = await joinAuthorizations(server);
    console.error(
      `${name}: ${answered} of ${sent} joins answered ${JSON.stringify(Object.fromEntries(replies))}; ` +
        `read checks: ${after.database - before.database} in the database, ${after.catalogue - before.catalogue} from the catalogue`,
    );
    return () => sockets.forEach((ws) => ws.terminate());
  };
}

/** Refresh tokens of new sessions, `count` of them, signed in before a flood so that signing in is not measured. */
async function refreshTokens(server: Server, count: number): Promise<string[]> {
  const players = await Promise.all(Array.from({ length: count }, () => signInPlayer(server)));
  return Promise.all(players.map(async (p) => (await p.client.auth.getSession()).data.session!.refresh_token));
}

/** 100 refresh grants on each of `tokens`, 300 in flight at once; tells how many were answered and how many tokens they named. */
function refreshFlood(server: Server, tokens: string[]) {
  return async () => {
    const requests = tokens.flatMap((token) => Array.from({ length: 100 }, () => token));
    const statuses: Record<number, number> = {};
    const children = new Set<string>();
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const token = requests[next++]!;
        const response = await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, {
          method: 'POST',
          headers: { apikey: server.anonKey, 'content-type': 'application/json' },
          body: JSON.stringify({ refresh_token: token }),
        });
        const body = (await response.json()) as { refresh_token?: string };
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        if (body.refresh_token) children.add(body.refresh_token);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: 300 }, worker));
    console.error(`refresh: ${requests.length} grants in ${round(performance.now() - started)} ms: ${JSON.stringify(statuses)}, ${children.size} tokens minted for ${tokens.length} sessions`);
    return () => {};
  };
}

/**
 * A new wallet at spawn upserts its presence row for `seconds`, 16 requests in flight, while
 * `follower` follows every change of game_players on one channel.
 */
function heartbeatsFlood(server: Server, follower: TestPlayer, seconds: number) {
  return async () => {
    const flooder = await signInPlayer(server);
    const token = await accessToken(flooder);
    const follow = await replySocket(server);
    let heard = 0;
    follow.ws.on('message', (data: Buffer) => data.includes(',"postgres_changes",{"ids"') && heard++);
    await joined(follow, 'f', 'realtime:follow-presence', {
      access_token: await accessToken(follower),
      config: { postgres_changes: [{ event: '*', schema: 'public', table: 'game_players' }] },
    });
    const statuses = new Map<number, number>();
    const body = JSON.stringify({ player_id: flooder.address, player_name: nameOf(flooder), x: 0, y: 0 });
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < until) {
          const response = await fetch(`${server.url}/rest/v1/game_players?on_conflict=player_id`, {
            method: 'POST',
            headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'resolution=merge-duplicates,return=minimal' },
            body,
          });
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
      }),
    );
    await barrier(follow);
    console.error(`heartbeats: ${statuses.get(201) ?? 0} accepted, ${statuses.get(429) ?? 0} refused (429) in ${seconds} s; the follower heard ${heard} changes`);
    return () => follow.ws.close();
  };
}

printHeader('floods', { warmups: 0, runs: RUNS });
const server = await startServer({ dataDir: await makeDataDir() });
try {
  const [bystander, poser, listener, outsider] = await Promise.all([signInPlayer(server), signInPlayer(server), signInPlayer(server), signInPlayer(server)]);
  await Promise.all([enterAtSpawn(bystander), enterAtSpawn(poser), enterAtSpawn(listener)]);
  const bystanderToken = await accessToken(bystander);
  await (await restProbe(server, bystanderToken)).stop();
  const refreshRuns = await Promise.all(Array.from({ length: RUNS }, () => refreshTokens(server, 30)));
  const idle = await rssMb(server.child.pid!);
  const floods: Array<[string, () => Promise<() => void>]> = [
    ['channels', channelsFlood(server, poser)],
    ['poses', posesFlood(server, poser, listener)],
    ['unknown', unknownFlood(server)],
    ['messages', messagesFlood(server)],
    ['long-topic', longTopicFlood(server)],
    ['bindings', bindingsFlood(server, listener, poser)],
    ['patterns', patternsFlood(server, poser)],
    ['refresh', () => refreshFlood(server, refreshRuns.shift()!)()],
    ['joins', joinsFlood(server, 'joins', null)],
    ['joins-signed-in', async () => joinsFlood(server, 'joins-signed-in', await accessToken(outsider))()],
    ['heartbeats', heartbeatsFlood(server, listener, pick(5, 3))],
  ];
  for (const [name, flood] of floods) {
    if (!chosen(name)) continue;
    const runs: Array<Awaited<ReturnType<typeof measure>>> = [];
    for (let run = 0; run < RUNS; run++) {
      // Presence goes stale after 30 s: refresh it so region floods stay authorised.
      await Promise.all([enterAtSpawn(poser), enterAtSpawn(listener)]);
      runs.push(await measure(server, bystanderToken, flood));
    }
    const med = (pick: (r: (typeof runs)[number]) => number) => round(median(runs.map(pick)));
    console.log(
      JSON.stringify({
        bench: 'floods',
        case: name,
        runs: RUNS,
        ...floodFigures(runs, idle),
        rest_max_ms: med((r) => r.max),
        server_cpu_ms: med((r) => r.cpu),
      }),
    );
  }
} finally {
  await server.stop();
}

/** Blocks and voice clips of the REST floods' world. */
const WORLD_BLOCKS = 60_000;
const CLIPS = 200;
const CLIP_CHARS = 250_000;

/**
 * A world of {@link WORLD_BLOCKS} blocks and {@link CLIPS} voice clips of {@link CLIP_CHARS}
 * base64 characters, written straight into `dataDir` as the database owner (the game's
 * triggers, which bound what a player may write per second, are skipped for the seeding).
 */
async function seedRestWorld(dataDir: string): Promise<void> {
  const db = await startDatabase({ dataDir, migrationsDir: 'supabase/migrations' });
  try {
    await db.transaction(async (tx) => {
      await tx.exec(`set local statement_timeout = '5min'; set local session_replication_role = replica`);
      await tx.exec(`
        insert into public.game_blocks (x, y, block_type, player_id, player_name)
        select x, y, 'stone', 'seed', 'Seed'
        from generate_series(-200, 200) x, generate_series(-75, 74) y
        where abs(x) > 2 or abs(y) > 2
        limit ${WORLD_BLOCKS}`);
      await tx.exec(`
        insert into public.game_voice_messages (player_id, player_name, audio_data, x, y)
        select 'seed', 'Seed', repeat('QUJD', ${CLIP_CHARS / 4}), n % 100, n / 100
        from generate_series(1, ${CLIPS}) n`);
    });
  } finally {
    await db.close();
  }
}

/**
 * 16 requests to `path` in flight at once from one signed-in stranger for `seconds`; prints
 * how many were answered with each status, so that a refused shape is seen to be refused.
 */
function restFlood(server: Server, token: string, name: string, path: string, seconds: number) {
  return async () => {
    const statuses = new Map<number, number>();
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < until) {
          const response = await fetch(`${server.url}/rest/v1/${path}`, { headers: { apikey: server.anonKey, authorization: `Bearer ${token}` } });
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
      }),
    );
    console.error(`${name}: ${JSON.stringify(Object.fromEntries(statuses))} (status: answers)`);
    return () => {};
  };
}

/** `count` distinct short values that sort before every stored player_id (2,600 of them fit a URL). */
const lowValues = (count: number) => Array.from({ length: count }, (_, i) => `0${i.toString(36)}`).join(',');

const restFloods = ([
  ['any-list-2600', `game_blocks?select=x,y&player_id=lt(any).{${lowValues(2600)}}`],
  ['any-list-100', `game_blocks?select=x,y&player_id=lt(any).{${lowValues(100)}}`],
  ['plain-scan', 'game_blocks?select=x,y&player_id=lt.0'],
  ['fts-clips', 'game_voice_messages?select=id&audio_data=fts.QUJD'],
  ['fts-names', 'game_voice_messages?select=id&player_name=fts.nobody'],
] as Array<[string, string]>).filter(([name]) => chosen(name));
if (restFloods.length > 0) {
  const restDir = await makeDataDir();
  await seedRestWorld(restDir);
  const restServer = await startServer({ dataDir: restDir });
  try {
    const [bystander, stranger] = await Promise.all([signInPlayer(restServer), signInPlayer(restServer)]);
    const bystanderToken = await accessToken(bystander);
    const strangerToken = await accessToken(stranger);
    await (await restProbe(restServer, bystanderToken)).stop();
    const idle = await rssMb(restServer.child.pid!);
    const seconds = pick(5, 3);
    for (const [name, path] of restFloods) {
      const runs: Array<Awaited<ReturnType<typeof measure>>> = [];
      for (let run = 0; run < RUNS; run++) runs.push(await measure(restServer, bystanderToken, restFlood(restServer, strangerToken, name, path, seconds)));
      console.log(JSON.stringify({ bench: 'floods', case: name, runs: RUNS, world_blocks: WORLD_BLOCKS, clips: CLIPS, ...floodFigures(runs, idle) }));
    }
  } finally {
    await restServer.stop();
    await removeDataDir(restDir);
  }
}
