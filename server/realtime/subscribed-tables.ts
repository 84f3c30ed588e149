import type { Queryable } from '../db/index.js';

/**
 * Keeps realtime.subscribed (the tables the change capture copies, capture.ts) in step with the
 * tables that have postgres_changes bindings, counted one by one: a table's oid is written when
 * its first binding comes and removed once its last one has gone. Writes run one at a time, in the order the
 * bindings came and went, and each writes the table's state as it then stands, so a join and a
 * leave racing on one table end with the table followed exactly when a binding is left.
 */
export class SubscribedTables {
  private readonly counts = new Map<number, number>();
  private readonly pending = new Map<number, Promise<void>>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Queryable,
    private readonly log: (message: string) => void,
  ) {}

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

  private write(oid: number): void {
    const done = this.chain.then(() => this.store(oid));
    this.chain = done;
    this.pending.set(oid, done);
    void done.then(() => {
      if (this.pending.get(oid) === done) this.pending.delete(oid);
    });
  }

  private async store(oid: number): Promise<void> {
    try {
      if (this.counts.has(oid)) await this.db.query('insert into realtime.subscribed (rel) values ($1) on conflict do nothing', [oid]);
      else await this.db.query('delete from realtime.subscribed where rel = $1', [oid]);
    } catch (error) {
      this.log(`realtime: following the changes of table ${oid} failed: ${(error as Error).message}`);
    }
  }
}
