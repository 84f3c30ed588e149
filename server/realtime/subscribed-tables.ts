import type { Queryable } from '../db/index.js';

/** How often a node of a cluster writes again the tables it follows, marking its rows of realtime.subscribed as alive. */
export const SUBSCRIBED_HEARTBEAT_MS = 10_000;

/** How long rows of realtime.subscribed stay without their node's heartbeat before any node removes them (their node is gone). */
export const SUBSCRIBED_STALE_MS = 60_000;

/**
 * Keeps this node's rows of realtime.subscribed (the tables the change capture copies,
 * capture.ts; one row per table and node) in step with the tables that have postgres_changes
 * bindings here, counted one by one: a table's row is written when its first binding comes and
 * removed once its last one has gone. Writes run one at a time, in the order the bindings came
 * and went, and each writes the table's state as it then stands, so a join and a leave racing on
 * one table end with the table followed exactly when a binding is left. A table is captured
 * while any node has a row for it.
 */
export class SubscribedTables {
  private readonly counts = new Map<number, number>();
  private readonly pending = new Map<number, Promise<void>>();
  private chain: Promise<void> = Promise.resolve();
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  /** `node` names this node's rows (the bus's name for it). */
  constructor(
    private readonly db: Queryable,
    private readonly node: string,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Removes the rows a previous process left: of a node of this name, or every row when this
   * server is alone (no other node can follow anything). On a node of a cluster, then writes its
   * rows again every SUBSCRIBED_HEARTBEAT_MS (restoring any another node removed while it seemed
   * gone) and removes the rows of nodes silent for SUBSCRIBED_STALE_MS, so the tables of nodes that
   * died are captured no longer even when no node saw them go.
   */
  async start(clustered: boolean): Promise<void> {
    if (!clustered) {
      await this.db.query('delete from realtime.subscribed');
      return;
    }
    await this.db.query('delete from realtime.subscribed where node = $1', [this.node]);
    this.heartbeat = setInterval(() => this.enqueue(() => this.beat()), SUBSCRIBED_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Removes the rows of `node`, which is gone. */
  async forget(node: string): Promise<void> {
    if (node === this.node) return;
    try {
      await this.db.query('delete from realtime.subscribed where node = $1', [node]);
    } catch (error) {
      this.log(`realtime: removing the tables followed by node ${node} failed: ${(error as Error).message}`);
    }
  }

  /** Stops the heartbeat and removes this node's rows once the writes under way are done. */
  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.chain;
    await this.db.query('delete from realtime.subscribed where node = $1', [this.node]).catch((error: Error) => {
      this.log(`realtime: removing the tables this node follows failed: ${error.message}`);
    });
  }

  /** One more binding of table `oid`: its changes are captured from when {@link ready} resolves. */
  follow(oid: number): void {
    const count = (this.counts.get(oid) ?? 0) + 1;
    this.counts.set(oid, count);
    if (count === 1) this.write(oid);
  }

  /** One binding of table `oid` less: after the last, its changes are captured no longer. */
  unfollow(oid: number): void {
    const count = (this.counts.get(oid) ?? 0) - 1;
    if (count > 0) {
      this.counts.set(oid, count);
      return;
    }
    this.counts.delete(oid);
    this.write(oid);
  }

  /** Resolves once the changes of every table in `oids` are captured (or their write failed, which is logged). */
  async ready(oids: Iterable<number>): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const oid of oids) {
      const write = this.pending.get(oid);
      if (write) waits.push(write);
    }
    await Promise.all(waits);
  }

  /** Resolves when no write is under way. */
  idle(): Promise<void> {
    return this.chain;
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const done = this.chain.then(step);
    this.chain = done;
    return done;
  }

  private write(oid: number): void {
    const done = this.enqueue(() => this.store(oid));
    this.pending.set(oid, done);
    void done.then(() => {
      if (this.pending.get(oid) === done) this.pending.delete(oid);
    });
  }

  private async store(oid: number): Promise<void> {
    try {
      if (this.counts.has(oid)) {
        await this.db.query('insert into realtime.subscribed (rel, node) values ($1, $2) on conflict (rel, node) do update set seen = now()', [oid, this.node]);
      } else await this.db.query('delete from realtime.subscribed where rel = $1 and node = $2', [oid, this.node]);
    } catch (error) {
      this.log(`realtime: following the changes of table ${oid} failed: ${(error as Error).message}`);
    }
  }

  private async beat(): Promise<void> {
    try {
      await this.db.query(
        `with stale as (
           delete from realtime.subscribed where node <> $1 and seen < now() - make_interval(secs => $3))
         insert into realtime.subscribed (rel, node) select unnest($2::oid[]), $1
           on conflict (rel, node) do update set seen = now()`,
        [this.node, [...this.counts.keys()], SUBSCRIBED_STALE_MS / 1000],
      );
    } catch (error) {
      this.log(`realtime: the heartbeat of the tables this node follows failed: ${(error as Error).message}`);
    }
  }
}
