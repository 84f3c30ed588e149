/** A reload that never runs twice at once: see {@link createReloader}. */
export interface Reloader {
  /**
   * Starts the reload, or, while one runs, asks it to run once more when done, so any number of
   * requests during a reload cost one more. Resolves when the reloading is over; never rejects.
   */
  run(): Promise<void>;
  /** The reloading under way, or null when none is. */
  running(): Promise<void> | null;
}

/**
 * Wraps `reload` (re-reading a catalogue after a schema change, say) so that a burst of requests
 * folds into at most two runs. A failed run is reported to `onError`; the previous state stays.
 */
export function createReloader(reload: () => Promise<void>, onError: (error: unknown) => void): Reloader {
  let current: Promise<void> | null = null;
  let again = false;
  return {
    run() {
      if (current) {
        again = true;
        return current;
      }
      current = (async () => {
        do {
          again = false;
          await reload();
        } while (again);
      })()
        .catch(onError)
        .finally(() => {
          current = null;
        });
      return current;
    },
    running: () => current,
  };
}
