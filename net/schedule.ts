/**
 * Timers on a fixed schedule. `setInterval` counts each period from when its callback ran, so
 * one long stall (a busy page, a throttled tab, a process running many clients) leaves every
 * timer that waited through it firing at the same instant from then on: a crowd's heartbeats
 * would all reach the server together.
 */

/** The clock and timers a schedule runs on; the defaults are the real ones. */
export interface ScheduleClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const realClock: ScheduleClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

/**
 * Calls `run` every `ms` from now, at now + k * ms: a call that came late does not push the
 * later ones back, and periods missed whole are skipped (one call, not a burst).
 */
export function everyPeriod(ms: number, run: () => void, clock: ScheduleClock = realClock): { stop(): void } {
  let due = clock.now() + ms;
  let timer: unknown;
  const tick = () => {
    run();
    const now = clock.now();
    due += ms;
    if (due < now) due += Math.ceil((now - due) / ms) * ms;
    timer = clock.setTimeout(tick, due - now);
  };
  timer = clock.setTimeout(tick, ms);
  return { stop: () => clock.clearTimeout(timer) };
}

/**
 * Gathers calls: `soon()` makes `run` due `ms` later unless it already is, so a burst of calls
 * within `ms` runs it once; `stop()` cancels a run that is due.
 */
export function gatherCalls(ms: number, run: () => void): { soon(): void; stop(): void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    soon() {
      timer ??= setTimeout(() => {
        timer = null;
        run();
      }, ms);
    },
    stop() {
      if (timer) clearTimeout(timer);
    },
  };
}
