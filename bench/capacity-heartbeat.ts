/**
 * bench:capacity's heartbeat case: what one presence heartbeat costs the database, alone on a
 * warm connection. Every player online writes one every 5 s (the upsert of its game_players row,
 * net/presence/heartbeat.ts), so a node's players times 0.2 is the heartbeats a second its
 * PostgreSQL must hold: at 1,000 players, 200. The upsert is the REST layer's own statement for
 * the request supabase-js sends, run as the player (role and claims of its token), each time in
 * a transaction rolled back so the rate and movement budgets never refuse it: in turns of 50,
 * prepared as the server runs it (server/db/prepared.ts) and with its values inlined, so both
 * are measured in the same minutes. Then `EXPLAIN ANALYZE` of one more gives each trigger's share.
 */
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { DEFAULT_APPEARANCE } from '../components/appearance-types.js';
import { openPool } from '../server/db/pool.js';
import { inlined, preparedStatements } from '../server/db/prepared.js';
import type { ParameterizedSql } from '../server/db/types.js';
import { loadCatalog, tableOf } from '../server/rest/catalog.js';
import { parsePrefer } from '../server/rest/prefer.js';
import { parseQuery } from '../server/rest/query.js';
import { insertStatement } from '../server/rest/sql.js';
import { signInPlayer, startTestServer } from '../test/support/harness.js';
import { claimsText } from '../test/support/live.js';
import { enterAtSpawn } from '../test/support/rules.js';
import { connectAsOperator, operatorConfig } from '../test/support/server.js';
import { cpuSeconds } from './processes.js';
import { percentile, round } from './stats.js';

/** What the heartbeat case measured. */
export interface HeartbeatFigures {
  heartbeats: number;
  /** Wall milliseconds of the upsert, prepared as the server runs it. */
  db_ms_p50: number;
  db_ms_p90: number;
  /**
   * CPU milliseconds of the PostgreSQL backend per heartbeat, prepared, read from /proc: steadier
   * than the wall time on a shared machine. It counts the transaction around each heartbeat too
   * (begin, the caller's settings, rollback), three round trips the REST layer sends as one.
   */
  db_cpu_ms: number;
  /** The same with the statement's values inlined (parsed, analysed and planned each time), and prepared over inlined. */
  db_cpu_ms_inlined: number;
  prepared_cpu_ratio: number;
  /** Milliseconds of each trigger in one heartbeat, and how many times it fired (an upsert fires the BEFORE triggers of both its halves). */
  triggers: Record<string, { ms: number; calls: number }>;
}

/** Heartbeats of one kind run in a row before the other kind's turn. */
const TURN = 50;

/** Runs `heartbeats` heartbeats of one player of each kind in turns, each rolled back, then explains one. */
export async function runHeartbeats(heartbeats: number): Promise<HeartbeatFigures> {
  const server = await startTestServer();
  const db = openPool(await operatorConfig(server), 1, () => {});
  let operator: pg.Client | null = null;
  try {
    operator = await connectAsOperator(server);
    const player = await signInPlayer(server);
    await enterAtSpawn(player, 'Beat');
    const claims = await claimsText(player);
    // The statement the REST layer makes of `upsert(row, { onConflict: 'player_id' }).select('health, level')`.
    const catalog = await loadCatalog(db, 'public');
    const table = tableOf(catalog, 'game_players');
    const query = parseQuery(catalog, table, new URLSearchParams({ on_conflict: 'player_id', select: 'health,level' }));
    const prefer = parsePrefer({ headers: { prefer: 'resolution=merge-duplicates,return=representation' } } as unknown as IncomingMessage);
    const upsert = (x: number): ParameterizedSql => {
      const stamp = new Date().toISOString();
      const row = { player_id: player.address, player_name: 'Beat', x, y: 0, health: 100, max_health: 100, level: 1, appearance: DEFAULT_APPEARANCE, is_swinging: false, last_seen: stamp, updated_at: stamp };
      const { sql, params } = insertStatement(table, query, [row], prefer)!;
      return { text: sql, params };
    };
    const begin = async () => {
      await operator!.query('begin');
      await operator!.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [claims]);
    };
    const prepared = preparedStatements();
    const backend = (await operator.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const times: number[] = [];
    const cpu = { prepared: 0, inlined: 0 };
    for (let done = 0; done < heartbeats; done += TURN) {
      for (const kind of ['prepared', 'inlined'] as const) {
        const cpuBefore = cpuSeconds(backend);
        for (let i = done; i < done + TURN; i++) {
          const statement = upsert(i % 3);
          const sql = kind === 'prepared' ? await prepared.sql(operator, statement) : inlined(statement);
          await begin();
          const started = performance.now();
          await operator.query(sql);
          if (kind === 'prepared') times.push(performance.now() - started);
          await operator.query('rollback');
        }
        cpu[kind] += cpuSeconds(backend) - cpuBefore;
      }
    }
    const runs = Math.ceil(heartbeats / TURN) * TURN;
    await begin();
    const { rows } = await operator.query<{ 'QUERY PLAN': string }>(`explain (analyze) ${inlined(upsert(1))}`);
    await operator.query('rollback');
    const triggers: HeartbeatFigures['triggers'] = {};
    for (const { 'QUERY PLAN': line } of rows) {
      const trigger = /^Trigger (\S+): time=([\d.]+) calls=(\d+)/.exec(line);
      if (trigger) triggers[trigger[1]!] = { ms: Number(trigger[2]), calls: Number(trigger[3]) };
    }
    return {
      heartbeats: runs,
      db_ms_p50: round(percentile(times, 50), 3),
      db_ms_p90: round(percentile(times, 90), 3),
      db_cpu_ms: round((cpu.prepared * 1000) / runs, 3),
      db_cpu_ms_inlined: round((cpu.inlined * 1000) / runs, 3),
      prepared_cpu_ratio: round(cpu.prepared / cpu.inlined, 2),
      triggers,
    };
  } finally {
    await operator?.end();
    await db.close();
    await server.stop();
  }
}
