import { RestError } from './errors.js';

/**
 * How many REST requests of one caller are served at once and how many may wait for a turn.
 * A browser opens at most six connections to a host, so a player never waits here; a script
 * that keeps many costly reads in flight gets the database's time of four, not of the whole
 * pool, and the others' requests go on being served beside it (docs/rest-bounds.md).
 */
export const CALLER_BOUNDS = Object.freeze({ running: 4, waiting: 64 });

interface Turns {
  running: number;
  waiting: Array<() => void>;
}

/**
 * A gate that lets at most {@link CALLER_BOUNDS.running} requests of each caller through at
 * once, queues up to {@link CALLER_BOUNDS.waiting} more in arrival order, and refuses the rest
 * with `429 TS112`. Callers without requests are forgotten, so it holds no more entries than
 * there are requests in progress.
 */
export function createCallerGate() {
  const callers = new Map<string, Turns>();
  return {
    /** Waits for a turn of `caller`; the returned function ends the turn (call it exactly once). */
    async enter(caller: string): Promise<() => void> {
      let turns = callers.get(caller);
      if (!turns) callers.set(caller, (turns = { running: 0, waiting: [] }));
      const own = turns;
      if (own.running < CALLER_BOUNDS.running) own.running++;
      else if (own.waiting.length < CALLER_BOUNDS.waiting) await new Promise<void>((resolve) => own.waiting.push(resolve));
      else {
        throw new RestError(
          429,
          'TS112',
          'Too many requests in flight',
          `${CALLER_BOUNDS.running} requests of this caller are running and ${CALLER_BOUNDS.waiting} waiting`,
          'Wait for answers before sending more requests',
          { 'Retry-After': '1' },
        );
      }
      return () => {
        // The turn passes to the next waiting request, or is given back.
        const next = own.waiting.shift();
        if (next) next();
        else if (--own.running === 0) callers.delete(caller);
      };
    },
  };
}

/** A gate made by {@link createCallerGate}. */
export type CallerGate = ReturnType<typeof createCallerGate>;
