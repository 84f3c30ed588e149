import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The server's Prometheus metrics (`GET /metrics`): prom-client's default process and Node.js
 * metrics, and the game's, all named `tessera_*`. Counters that deep modules move are kept here;
 * gauges read the server's state when scraped, through the readers {@link observe} is given.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** What the gauges read at each scrape; set once the server runs. */
export interface MetricSources {
  /** Distinct signed-in wallets with a Realtime channel joined. */
  playersOnline(): number;
  /** Open Realtime websockets. */
  connections(): number;
  /** Joined Realtime channels, over every socket. */
  channels(): number;
  /** Broadcasts shed so far by sockets behind and while the server was behind, by nearness (server/realtime/wire.ts). */
  broadcastsShed(): Readonly<Record<'near' | 'far', number>>;
  /** Realtime messages received and sent so far. */
  messages(): { in: number; out: number };
  /** The pool's connections: in use, idle, and requests waiting for one. */
  pool(): { active: number; idle: number; waiting: number };
  /** Blocks in the world, as last counted. */
  blocks(): Promise<number>;
}

let sources: MetricSources | null = null;

/** Gives the gauges their readers. */
export function observe(readers: MetricSources): void {
  sources = readers;
}

new Gauge({
  name: 'tessera_players_online', help: 'Signed-in players with a Realtime channel joined', registers: [registry],
  collect() { this.set(sources?.playersOnline() ?? 0); },
});
new Gauge({
  name: 'tessera_realtime_connections', help: 'Open Realtime websockets', registers: [registry],
  collect() { this.set(sources?.connections() ?? 0); },
});
new Gauge({
  name: 'tessera_realtime_channels', help: 'Joined Realtime channels', registers: [registry],
  collect() { this.set(sources?.channels() ?? 0); },
});
new Counter({
  name: 'tessera_realtime_messages_total', help: 'Realtime messages received (in) and sent (out)', labelNames: ['direction'], registers: [registry],
  collect() {
    const counts = sources?.messages() ?? { in: 0, out: 0 };
    this.reset();
    this.inc({ direction: 'in' }, counts.in);
    this.inc({ direction: 'out' }, counts.out);
  },
});
new Counter({
  name: 'tessera_broadcasts_shed_total', help: 'Broadcasts shed (replaced by a newer one, dropped or thinned), by kind: near (the topic the socket speaks on) or far',
  labelNames: ['kind'], registers: [registry],
  collect() {
    this.reset();
    for (const [kind, count] of Object.entries(sources?.broadcastsShed() ?? { near: 0, far: 0 })) this.inc({ kind }, count);
  },
});
new Gauge({
  name: 'tessera_db_pool_connections', help: 'Pooled database connections by state; waiting counts requests queued for one', labelNames: ['state'], registers: [registry],
  collect() {
    const pool = sources?.pool() ?? { active: 0, idle: 0, waiting: 0 };
    for (const [state, count] of Object.entries(pool)) this.set({ state }, count);
  },
});
new Gauge({
  name: 'tessera_blocks_total', help: 'Blocks in the world', registers: [registry],
  async collect() { this.set(sources ? await sources.blocks() : 0); },
});

/** REST requests' durations, by method, table (`rpc` for functions, `other` for a name not in the schema) and status class (2xx…5xx). */
export const restDuration = new Histogram({
  name: 'tessera_rest_request_duration_seconds', help: 'REST request durations',
  labelNames: ['method', 'table', 'status'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10], registers: [registry],
});

/** Log lines dropped because standard output took none for longer than the log's memory holds (server/log.ts). */
export const logLinesDropped = new Counter({ name: 'tessera_log_lines_dropped_total', help: 'Log lines dropped while standard output could not take them', registers: [registry] });

/** Queries `/readyz` sent to the database (server/http/ops.ts): a flood of requests shares them, at most about 4 a second. */
export const readinessQueries = new Counter({
  name: 'tessera_readiness_queries_total', help: 'Readiness checks that queried the database', registers: [registry],
});

/** Statements that PostgreSQL cancelled for running past their `statement_timeout` (SQLSTATE 57014). */
export const statementTimeouts = new Counter({
  name: 'tessera_db_statement_timeouts_total', help: 'Statements cancelled by statement_timeout', registers: [registry],
});

/**
 * REST statement shapes a connection prepared (`prepared`) or PostgreSQL would not prepare
 * (`refused`: they run with their values inlined), server/db/prepared.ts.
 */
export const preparedStatementsTotal = new Counter({
  name: 'tessera_db_statements_prepared_total', help: 'REST statement shapes prepared on a connection, or refused by PostgreSQL', labelNames: ['outcome'], registers: [registry],
});
for (const outcome of ['prepared', 'refused']) preparedStatementsTotal.inc({ outcome }, 0);

/** Sign-ins (Web3 and password) by result: `success`, `refused` (a 4xx other than 429) or `rate_limited`. */
export const signIns = new Counter({
  name: 'tessera_signins_total', help: 'Sign-ins by result', labelNames: ['result'], registers: [registry],
});
for (const result of ['success', 'refused', 'rate_limited']) signIns.inc({ result }, 0);

/**
 * Read checks of private channels (on a join or a token update) by how they were answered:
 * `database`, one authorisation transaction on realtime.messages; `catalogue`, refused without
 * one because no read policy can grant the caller's role anything (server/realtime/read-policies.ts).
 */
export const joinAuthorizations = new Counter({
  name: 'tessera_realtime_join_authorizations_total', help: 'Read checks of private channels by how they were answered',
  labelNames: ['answered_by'], registers: [registry],
});
for (const answeredBy of ['database', 'catalogue']) joinAuthorizations.inc({ answered_by: answeredBy }, 0);

/**
 * Authorisation transactions the read checks of private channels ran (server/realtime/read-checks.ts):
 * `batch`, one for the checks of one caller gathered together (one or more); `alone`, one check
 * run again by itself after a statement of its batch failed.
 */
export const readCheckTransactions = new Counter({
  name: 'tessera_realtime_read_check_transactions_total', help: 'Authorisation transactions of read checks: a batch of one caller\'s checks, or one check run again alone',
  labelNames: ['run'], registers: [registry],
});
for (const run of ['batch', 'alone']) readCheckTransactions.inc({ run }, 0);

/**
 * Authorisation transactions of write checks (server/realtime/write-checks.ts): a batch of checks
 * of any callers, or one check run again by itself after a statement of its batch failed.
 */
export const writeCheckTransactions = new Counter({
  name: 'tessera_realtime_write_check_transactions_total', help: 'Authorisation transactions of write checks: a batch of checks of any callers, or one check run again alone',
  labelNames: ['run'], registers: [registry],
});
for (const run of ['batch', 'alone']) writeCheckTransactions.inc({ run }, 0);

/**
 * Visibility checks of row changes another node drained, by who answered them: `drainer`, its
 * verdicts relayed with the changes (checks that depend on no claims), or `database`, a round
 * trip of this node (server/realtime/change-relay.ts).
 */
export const relayedChecks = new Counter({
  name: 'tessera_realtime_relayed_checks_total', help: 'Visibility checks of row changes another node drained, by who answered them',
  labelNames: ['answered_by'], registers: [registry],
});
for (const answeredBy of ['drainer', 'database']) relayedChecks.inc({ answered_by: answeredBy }, 0);

/** Write checks of private channels the database answered (server/realtime/write-checks.ts). */
export const writeChecks = new Counter({ name: 'tessera_realtime_write_checks_total', help: 'Write checks of private channels the database answered', registers: [registry] });

/**
 * Row changes the change capture did not hand to postgres_changes because their statement changed
 * more than MAX_CHANGES_PER_STATEMENT rows of one table (server/realtime/limits.ts).
 */
export const realtimeChangesDropped = new Counter({
  name: 'tessera_realtime_changes_dropped_total', help: 'Row changes not captured for postgres_changes: past the bound of one statement', registers: [registry],
});

/** 1 while this node drains the cluster's change and database broadcast queues (server/realtime/drain-lease.ts), else 0. */
export const realtimeDrainer = new Gauge({
  name: 'tessera_realtime_drainer', help: 'Whether this node drains the change queues of the cluster', registers: [registry],
});

/** Messages of the bus between nodes (server/cluster/), published (`out`) and heard from other nodes (`in`). */
export const busMessages = new Counter({
  name: 'tessera_bus_messages_total', help: 'Messages of the bus between nodes, out and in', labelNames: ['direction'], registers: [registry],
});
for (const direction of ['in', 'out']) busMessages.inc({ direction }, 0);

/** Seconds from a message's publishing on one node to its arrival on another (clocks of different machines add their skew). */
export const busDelivery = new Histogram({
  name: 'tessera_bus_delivery_seconds', help: 'Time from publish on one node to delivery on another',
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1], registers: [registry],
});

/** Messages the bus dropped: published while Redis was down, or past a channel's bound within one turn. */
export const busDropped = new Counter({
  name: 'tessera_bus_dropped_total', help: 'Bus messages dropped while Redis was down or over the bound of one turn', registers: [registry],
});

/** Times the bus came back after losing Redis. */
export const busReconnects = new Counter({
  name: 'tessera_bus_reconnects_total', help: 'Times the bus reconnected to Redis', registers: [registry],
});

/** Labels every metric with the node that reports it, so the series of a cluster's nodes stay apart. */
export function labelMetricsWithNode(node: string): void {
  registry.setDefaultLabels({ node });
}
