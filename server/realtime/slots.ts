/** A counting semaphore: at most `limit` holders at once; the others wait in arrival order. */
class Semaphore {
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Resolves once a place is held. */
  acquire(): Promise<void> {
    if (this.held < this.limit) {
      this.held++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Gives the place up, to the longest waiter when there is one. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held--;
  }

  /** Nobody holds a place (so nobody waits either). */
  idle(): boolean {
    return this.held === 0;
  }
}

/**
 * Places for work that holds a database connection (the authorisation transactions of private
 * channels): at most `perKey` tasks of one key (a network address) and `total` tasks in all run
 * at once; the others wait in arrival order, first for their key's place, then for a place in
 * all, so each key has at most `perKey` tasks waiting for the shared places and no key can take
 * them all. A key with nothing running is forgotten: the map holds only keys at work.
 */
export class KeyedSlots {
  private readonly keys = new Map<string, Semaphore>();
  private readonly all: Semaphore;

  constructor(private readonly perKey: number, total: number) {
    this.all = new Semaphore(total);
  }

  /** Runs `task` once a place of the whole is free, whatever the keys hold; resolves (or rejects) as it does. */
  async runShared<T>(task: () => Promise<T>): Promise<T> {
    await this.all.acquire();
    try {
      return await task();
    } finally {
      this.all.release();
    }
  }

  /** Runs `task` once `key` and the whole have a place free; resolves (or rejects) as it does. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let slot = this.keys.get(key);
    if (!slot) this.keys.set(key, (slot = new Semaphore(this.perKey)));
    await slot.acquire();
    try {
      return await this.runShared(task);
    } finally {
      slot.release();
      if (slot.idle()) this.keys.delete(key);
    }
  }
}
