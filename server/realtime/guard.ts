/**
 * Containment for code that runs outside a request's own error handling: timer and event
 * callbacks. An exception thrown there would reach the process's top level and stop the server
 * for every player; wrapped, it is logged and only the work at hand is lost.
 */
import { log } from '../log.js';

/** Where guarded callbacks report their failures: the server's log, as the rest of Realtime's. */
function report(message: string): void {
  log.error(message);
}

/** The message of a thrown value, whatever was thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `fn` wrapped so that an exception it throws is logged as a failure of `what` instead of
 * propagating; `onError` (when given) then cleans up what the failure concerned, itself guarded.
 */
export function guarded<A extends unknown[]>(what: string, fn: (...args: A) => void, onError?: (error: unknown) => void): (...args: A) => void {
  return (...args: A) => {
    try {
      fn(...args);
    } catch (error) {
      report(`realtime: ${what} failed: ${errorMessage(error)}`);
      if (!onError) return;
      try {
        onError(error);
      } catch (again) {
        report(`realtime: cleaning up after ${what} failed: ${errorMessage(again)}`);
      }
    }
  };
}
