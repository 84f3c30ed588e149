/**
 * bench:capacity's join storm: a world whose players all come back at once (a restart). Their
 * presence rows are where they stood; every bot signs in and enters within `arrivalSeconds`,
 * each from a source address of its own, walking as soon as it is in. Measured: how long until
 * every bot is in the world with a complete view (signed in, every channel joined, every chunk
 * of its view read, the players around read), and what the server refused meanwhile.
 */
import { readFileSync } from 'node:fs';
import { makeDataDir, removeDataDir } from '../test/support/harness.js';
import type { Bot } from '../test/support/load/bot.js';
import { Fleet, loopbackAddress } from '../test/support/load/fleet.js';
import { createBotKeys, signInBot } from '../test/support/load/sign-in.js';
import { sleep } from '../test/support/wait.js';
import { placement, type Shape } from './capacity-steps.js';
import { pinnedServer, scrape, serverCpu, type Scrape } from './capacity-support.js';
import { seedPresence } from './seed.js';
import { round } from './stats.js';

/** What a storm run measured. */
export interface StormFigures {
  players: number;
  layout: Shape;
  arrival_s: number;
  /** Seconds from the first arrival until the last bot had a complete view; null when some never did within the wait. */
  all_in_s: number | null;
  /** Bots with a complete view at the end of the wait. */
  in_world: number;
  /** Seconds until half of them, and 99 %, had a complete view. */
  in_p50_s: number;
  in_p99_s: number;
  sign_in_failed: number;
  /** Refusals of movement or rate (a rule meant for one player refusing one of a crowd), and every refusal by kind. */
  refused: number;
  refusals: Record<string, number>;
  server_cpu_cores: number;
  /** Read checks of private channels the database answered, and the transactions they took (a caller's checks of the moment run as one). */
  join_authorizations: number;
  join_transactions: number;
  disconnects: number;
  /** What the bots not in the world still lacked at the end of the wait, and how many lacked each part. */
  lacking: Record<string, number>;
  /** Handshakes the kernel dropped for a full accept queue meanwhile, on every listener of the machine (TcpExt ListenOverflows). */
  listen_overflows: number;
}

/** The machine's count of connections dropped for a full accept queue (TcpExt ListenOverflows in /proc/net/netstat); NaN where unreadable. */
function listenOverflows(): number {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((line) => line.startsWith('TcpExt:'));
    const names = lines[0]!.split(' ');
    return Number(lines[1]!.split(' ')[names.indexOf('ListenOverflows')]);
  } catch {
    return NaN;
  }
}

/** Refusals that would mean a rule meant for one player hit a crowd: movement, or a rate. */
export function isMovementOrRate(kind: string): boolean {
  return /\b429\b|rate|too many|TooMany|RateLimit|movement|too fast|reach|implausible/i.test(kind);
}

/** Runs one storm of `players` bots in `layout`, arriving within `arrivalSeconds`, waiting at most `waitSeconds` for the last. */
export async function runStorm(players: number, layout: Shape, arrivalSeconds: number, waitSeconds: number): Promise<StormFigures> {
  const placements = Array.from({ length: players }, (_, i) => placement(layout, i, players));
  const keys = createBotKeys(players);
  const dataDir = await makeDataDir();
  await seedPresence(dataDir, placements.map(({ plan }, i) => ({ address: keys[i]!.address, name: plan.name, ...plan.start })));
  const { server } = await pinnedServer(dataDir);
  const fleet = new Fleet(server.url, server.anonKey, players);
  const inAt: number[] = [];
  let signInFailed = 0;
  try {
    const metricsBefore = await scrape(server);
    const cpuBefore = await serverCpu(server);
    const overflowsBefore = listenOverflows();
    fleet.figures.recording = true;
    const started = Date.now();
    const entering: Bot[] = [];
    const arrivals: Promise<void>[] = [];
    /** Bots still signing in, and signed in but not yet through their first heartbeat. */
    const arriving = { signingIn: 0, starting: 0 };
    for (let i = 0; i < players; i++) {
      arrivals.push((async () => {
        let step: keyof typeof arriving = 'signingIn';
        arriving[step]++;
        try {
          const identity = await signInBot(server, keys[i]!, loopbackAddress(i));
          arriving[step]--;
          arriving[(step = 'starting')]++;
          const bot = await fleet.add(identity, placements[i]!.plan);
          arriving[step]--;
          bot.walkFrom = Date.now();
          entering.push(bot);
        } catch (error) {
          arriving[step]--;
          signInFailed++;
          fleet.figures.refuse(`enter ${(error as Error).message.replace(/^sign-in of \S+/, 'sign-in').replace(/-?\d+/g, 'N').slice(0, 120)}`);
        }
      })());
      await sleep(started + ((i + 1) * arrivalSeconds * 1000) / players - Date.now());
    }
    const waitUntil = started + waitSeconds * 1000;
    const seen = new Set<Bot>();
    while (Date.now() < waitUntil && inAt.length + signInFailed < players) {
      for (const bot of entering) {
        if (seen.has(bot) || !bot.complete()) continue;
        seen.add(bot);
        inAt.push((Date.now() - started) / 1000);
      }
      await sleep(100);
    }
    await Promise.race([Promise.all(arrivals), sleep(1000)]);
    const cpuAfter = await serverCpu(server);
    const metricsAfter = await scrape(server);
    fleet.figures.recording = false;
    // Why some never got in, where the server says so: its log, on stderr with the progress.
    if (inAt.length < players) console.error(`capacity storm: server log (last 40 lines):\n${server.output().split('\n').slice(-40).join('\n')}`);
    const elapsed = (Date.now() - started) / 1000;
    const sorted = [...inAt].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * players))] ?? NaN;
    const refusals = Object.fromEntries(fleet.figures.refusals);
    const lacking: Record<string, number> = {};
    if (arriving.signingIn > 0) lacking['sign-in'] = arriving.signingIn;
    if (arriving.starting > 0) lacking['socket and first heartbeat'] = arriving.starting;
    for (const bot of entering) for (const part of new Set(bot.lacking())) lacking[part] = (lacking[part] ?? 0) + 1;
    // Each series carries the node's label too: summed over the series of a name whose labels include `label`.
    const sum = (samples: Scrape, name: string, label = '') => [...samples].reduce((total, [key, value]) => total + (key.startsWith(`${name}{`) && key.includes(label) ? value : 0), 0);
    const authorizations = (samples: Scrape) => sum(samples, 'tessera_realtime_join_authorizations_total', 'answered_by="database"');
    const transactions = (samples: Scrape) => sum(samples, 'tessera_realtime_read_check_transactions_total');
    return {
      players,
      layout,
      arrival_s: arrivalSeconds,
      all_in_s: inAt.length === players ? round(sorted.at(-1)!, 1) : null,
      in_world: inAt.length,
      in_p50_s: round(at(0.5), 1),
      in_p99_s: round(at(0.99), 1),
      sign_in_failed: signInFailed,
      refused: Object.entries(refusals).reduce((sum, [kind, count]) => sum + (isMovementOrRate(kind) ? count : 0), 0),
      refusals,
      server_cpu_cores: round((cpuAfter.all - cpuBefore.all) / elapsed, 2),
      join_authorizations: authorizations(metricsAfter) - authorizations(metricsBefore),
      join_transactions: transactions(metricsAfter) - transactions(metricsBefore),
      disconnects: fleet.figures.disconnects,
      lacking,
      listen_overflows: listenOverflows() - overflowsBefore,
    };
  } finally {
    fleet.figures.recording = false;
    await fleet.stop();
    await server.stop();
    await removeDataDir(dataDir);
  }
}
