/**
 * bench:capacity's heartbeat case: what one presence heartbeat costs the database, alone on a
 * warm connection. Every player online writes one every 5 s (the upsert of its game_players row,
 * net/presence/heartbeat.ts), so a node's players times 0.2 is the heartbeats a second its
 * PostgreSQL must hold: at 1,000 players, 200. The upsert is run as the player (role and claims
 * of its token), each time in a transaction rolled back so the rate and movement budgets never
 * refuse it; then `EXPLAIN ANALYZE` of one more gives each trigger's share.
 */
import type pg from 'pg';
import { DEFAULT_APPEARANCE } from '../components/appearance-types.js';
import { signInPlayer, startTestServer } from '../test/support/harness.js';
import { claimsText } from '../test/support/live.js';
import { enterAtSpawn } from '../test/support/rules.js';
import { connectAsOperator } from '../test/support/server.js';
import { cpuSeconds } from './processes.js';
import { percentile, round } from './stats.js';

/** What the heartbeat case measured. */
export interface HeartbeatFigures {
  heartbeats: number;
  db_ms_p50: number;
  db_ms_p90: number;
  /**
   * CPU milliseconds of the PostgreSQL backend per heartbeat, read from /proc: steadier than the
   * wall time on a shared machine. It counts the transaction around each heartbeat too (begin,
   * the caller's settings, rollback), three round trips the REST layer sends as one.
   */
  db_cpu_ms: number;
  /** Milliseconds of each trigger in one heartbeat, and how many times it fired (an upsert fires the BEFORE triggers of both halves). */
  triggers: Record<string, { ms: number; calls: number }>;
}

/** The heartbeat upsert as the REST layer runs it for net/presence/heartbeat.ts, `x` pixels right of spawn. */
function upsert(address: string, x: number): string {
  const appearance = JSON.stringify(DEFAULT_APPEARANCE).replaceAll("'", "''");
  return `insert into public.game_players (player_id, player_name, x, y, health, max_health, level, appearance, is_swinging, last_seen, updated_at)
    values ('${address}', 'Beat', ${x}, 0, 100, 100, 1, '${appearance}', false, now(), now())
    on conflict (player_id) do update set player_name = excluded.player_name, x = excluded.x, y = excluded.y, health = excluded.health,
      max_health = excluded.max_health, level = excluded.level, appearance = excluded.appearance, is_swinging = excluded.is_swinging,
      last_seen = excluded.last_seen, updated_at = excluded.updated_at
    returning health, level`;
}

/** Runs `heartbeats` heartbeats of one player in turn, each rolled back, then explains one. */
export async function runHeartbeats(heartbeats: number): Promise<HeartbeatFigures> {
  const server = await startTestServer();
  let operator: pg.Client | null = null;
  try {
    operator = await connectAsOperator(server);
    const player = await signInPlayer(server);
    await enterAtSpawn(player, 'Beat');
    const claims = await claimsText(player);
    const begin = async () => {
      await operator!.query('begin');
      await operator!.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [claims]);
    };
    const backend = (await operator.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const times: number[] = [];
    const cpuBefore = cpuSeconds(backend);
    for (let i = 0; i < heartbeats; i++) {
      await begin();
      const started = performance.now();
      await operator.query(upsert(player.address, i % 3));
      times.push(performance.now() - started);
      await operator.query('rollback');
    }
    const dbCpuMs = ((cpuSeconds(backend) - cpuBefore) * 1000) / heartbeats;
    await begin();
    const { rows } = await operator.query<{ 'QUERY PLAN': string }>(`explain (analyze) ${upsert(player.address, 1)}`);
    await operator.query('rollback');
    const triggers: HeartbeatFigures['triggers'] = {};
    for (const { 'QUERY PLAN': line } of rows) {
      const trigger = /^Trigger (\S+): time=([\d.]+) calls=(\d+)/.exec(line);
      if (trigger) triggers[trigger[1]!] = { ms: Number(trigger[2]), calls: Number(trigger[3]) };
    }
    return { heartbeats, db_ms_p50: round(percentile(times, 50), 3), db_ms_p90: round(percentile(times, 90), 3), db_cpu_ms: round(dbCpuMs, 3), triggers };
  } finally {
    await operator?.end();
    await server.stop();
  }
}
