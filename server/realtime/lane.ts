/**
 * One drain lane: a queue in the database (realtime.changes for postgres_changes,
 * realtime.broadcasts for database broadcasts) drained by its own loop, woken by its own NOTIFY,
 * so a backlog in one lane never holds up the other.
 */
export interface Lane {
  /**
   * Asks for a drain, coalescing wake-ups that come while a drain runs or waits. `now` (a row
   * inserted or deleted, a message): the drain starts DRAIN_GAP_MS after the last one began, at
   * once if that is past. `soon` (only rows updated): UPDATE_GAP_MS after it.
   */
  wake(urgency?: Urgency): void;
  /** Starts at once a drain that is waiting, and resolves when no drain runs or waits. */
  idle(): Promise<void>;
}

/** How soon a wake wants its drain. */
export type Urgency = 'now' | 'soon';

/**
 * Least time between the starts of two drains of one lane while rows keep coming: a row that
 * finds the lane idle is drained at once, and under a stream of them each drain takes those of
 * this long together, one query and one pass over the subscribers for several rows instead of
 * one each.
 */
export const DRAIN_GAP_MS = 20;

/**
 * Least time between the starts of two drains while only updates come: the presence heartbeats
 * of a crowd (50 a second at 250 players) are drained about ten times a second, not fifty, each
 * drain's fixed work (its query, the visibility checks of every table's readers, a frame to every
 * follower) shared by five of them. Hosted Realtime polls its changes this often. Inserts and
 * deletes keep DRAIN_GAP_MS: an insert deleted before its drain would no longer be delivered
 * (its row no longer stands when it is checked), and a wider gap would widen that window.
 */
export const UPDATE_GAP_MS = 100;

/** The NOTIFY payload of a statement that only updated rows: its changes may wait UPDATE_GAP_MS. */
export const UPDATES_PAYLOAD = 'updates';

/** The urgency a NOTIFY `payload` asks for. */
export function urgencyOf(payload: string): Urgency {
  return payload === UPDATES_PAYLOAD ? 'soon' : 'now';
}

/**
 * Creates a lane around `drainOnce`, which drains and delivers once and resolves to whether it
 * left rows behind (it took as many as it may; the rest are drained as if woken `now`). A failed
 * drain is handed to `onError` and tried again on the next wake.
 */
export function createLane(drainOnce: () => Promise<boolean>, onError: (error: unknown) => void): Lane {
  let running: Promise<void> | null = null;
  /** What the wakes since the last drain began asked for; null when none came. */
  let wanted: Urgency | null = null;
  let lastStart = -Infinity;
  let timer: NodeJS.Timeout | null = null;

  function start(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    wanted = null;
    lastStart = performance.now();
    running = drainOnce()
      .then((left) => {
        if (left) wanted = 'now';
      })
      .catch(onError)
      .finally(() => {
        running = null;
        schedule();
      });
  }

  /** Starts the drain the wakes asked for, or sets its timer; the earlier of a timer and an urgent wake wins. */
  function schedule(): void {
    if (running || wanted === null) return;
    const wait = lastStart + (wanted === 'now' ? DRAIN_GAP_MS : UPDATE_GAP_MS) - performance.now();
    if (wait <= 0) return start();
    if (timer) clearTimeout(timer);
    // A timer counts from the event loop's clock, read when the loop last woke, so it may fire
    // early by as long as the loop has been busy since: its callback measures again.
    timer = setTimeout(() => {
      timer = null;
      schedule();
    }, wait);
  }

  return {
    wake(urgency = 'now') {
      const before = wanted;
      if (wanted !== 'now') wanted = urgency;
      if (wanted !== before) schedule();
    },
    async idle() {
      while (timer || running) {
        if (timer) start();
        await running;
      }
    },
  };
}
