/**
 * Operations benchmark. Prints JSON lines after a machine header:
 *   - `scrape`: CPU seconds of the server process (utime + stime from /proc) over a window with
 *     one GET /metrics a second, against the same window idle; the difference as a share of one
 *     core (the budget: under 1%).
 *   - `backup` / `restore`: a world of BLOCKS blocks (default 1,000,000; `--quick` 100,000)
 *     backed up while the server runs, then restored into a new DATA_DIR: seconds, archive
 *     bytes, and the median of the runs.
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectAsOperator, makeDataDir, removeDataDir, startServer } from '../test/support/server.js';
import { sleep } from '../test/support/wait.js';
import { cpuSeconds } from './processes.js';
import { median, pick, printHeader, round } from './stats.js';

const run = promisify(execFile);
const BLOCKS = pick(1_000_000, 100_000);
const RUNS = pick(3, 1);
const WINDOW_S = pick(60, 20);

async function windowCpu(pid: number, seconds: number, each?: () => Promise<unknown>): Promise<number> {
  const start = cpuSeconds(pid);
  for (let i = 0; i < seconds; i++) {
    const tick = sleep(1000);
    await each?.();
    await tick;
  }
  return cpuSeconds(pid) - start;
}

printHeader('operations', { warmups: 0, runs: RUNS, blocks: BLOCKS, window_s: WINDOW_S });

const server = await startServer();
try {
  const pid = server.child.pid!;
  const url = `${server.url}/metrics`;
  await fetch(url).then((res) => res.text());
  const idle = await windowCpu(pid, WINDOW_S);
  let bytes = 0;
  const scraping = await windowCpu(pid, WINDOW_S, async () => (bytes = (await (await fetch(url)).text()).length));
  console.log(JSON.stringify({
    bench: 'operations', case: 'scrape', scrapes: WINDOW_S, bytes_per_scrape: bytes,
    idle_cpu_s: round(idle, 2), scraping_cpu_s: round(scraping, 2),
    cost_share_of_core: round((scraping - idle) / WINDOW_S, 4),
  }));

  const operator = await connectAsOperator(server);
  const side = Math.ceil(Math.sqrt(BLOCKS));
  const seeded = performance.now();
  await operator.query(`set session_replication_role = replica`);
  await operator.query(
    `insert into public.game_blocks (x, y, block_type, player_id, player_name)
     select 100 + i % ${side}, 100 + i / ${side}, 'stone', 'bench-wallet', 'Bench' from generate_series(0, ${BLOCKS - 1}) i`,
  );
  await operator.query('vacuum analyze public.game_blocks');
  await operator.end();
  console.log(JSON.stringify({ bench: 'operations', case: 'seed', blocks: BLOCKS, seconds: round((performance.now() - seeded) / 1000, 1) }));

  const work = await makeDataDir();
  try {
    const backups: number[] = [];
    const restores: number[] = [];
    let size = 0;
    for (let i = 0; i < RUNS; i++) {
      const file = join(work, `world-${i}.backup.gz`);
      const started = performance.now();
      await run(process.execPath, ['dist/admin.mjs', 'backup', file], { env: { ...process.env, DATA_DIR: server.dataDir } });
      backups.push((performance.now() - started) / 1000);
      size = statSync(file).size;
      const target = await makeDataDir();
      try {
        const { stdout } = await run(process.execPath, ['dist/admin.mjs', 'restore', file], { env: { ...process.env, DATA_DIR: target } });
        const result = JSON.parse(stdout.trim().split('\n').pop()!) as { seconds: number; tables: Record<string, { rows: number; verified: boolean }> };
        if (result.tables['public.game_blocks']!.rows !== BLOCKS || !result.tables['public.game_blocks']!.verified) throw new Error('restore incomplete');
        restores.push(result.seconds);
      } finally {
        await removeDataDir(target);
      }
    }
    console.log(JSON.stringify({ bench: 'operations', case: 'backup', blocks: BLOCKS, archive_bytes: size, seconds: backups.map((s) => round(s, 2)), median_s: round(median(backups), 2) }));
    console.log(JSON.stringify({ bench: 'operations', case: 'restore', blocks: BLOCKS, seconds: restores, median_s: round(median(restores), 2), includes: 'new cluster, migrations, load, read-back check' }));
  } finally {
    await removeDataDir(work);
  }
} finally {
  await server.stop();
}
