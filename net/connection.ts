/**
 * The state of the live connection as the player sees it, worked out from what the session
 * notices (no timer, no network of its own):
 *
 *   * `connecting` until the live channels first come up;
 *   * `online` while they are up;
 *   * `restoring` from the moment they all drop or a request fails for want of a network, until
 *     they are up again, a resync (the player's presence row written again, the players and the
 *     claims near by read again) has succeeded since, and every chunk of the view has been read
 *     again. A failed resync is tried again RESYNC_RETRY_MS later while the channels are up.
 *
 * The session (net/session-link.ts) feeds it and runs the resyncs it asks for.
 */

/** What the player is told about the connection. */
export type ConnectionState = 'connecting' | 'online' | 'restoring';

/** Wait before a failed resync is tried again. */
export const RESYNC_RETRY_MS = 1000;

/** The connection's state machine. */
export interface ConnectionMachine {
  state(): ConnectionState;
  /** The live channels came up (true: at least one is joined) or all dropped (false). */
  channels(up: boolean): void;
  /** A request failed without reaching the server: what was heard meanwhile may be missing. */
  unreachable(): void;
  /** Returns the number of a resync to start now (the caller runs it), or null when none is due at `now`. */
  resyncDue(now: number): number | null;
  /** Resync `id` ended at `now`; a failure is retried later, an outdated one is ignored. */
  resyncEnded(id: number, ok: boolean, now: number): void;
  /** Whether every chunk of the view is read since the last drop: the last condition of `online`. */
  viewComplete(complete: boolean): void;
}

/** Where a restore stands: a resync due (not before `retryAt`), running (its number) or done. */
type Resync = { phase: 'due'; retryAt: number } | { phase: 'running'; id: number } | { phase: 'done' };

/** Starts `connecting`; `onChange` hears each new state. */
export function createConnectionMachine(onChange: (state: ConnectionState) => void): ConnectionMachine {
  let state: ConnectionState = 'connecting';
  let up = false;
  let resync: Resync = { phase: 'done' };
  let resyncs = 0;

  const enter = (next: ConnectionState) => {
    if (next === state) return;
    state = next;
    onChange(state);
  };
  /** Something may have been missed: a new resync is due, and the player is told. */
  const lost = () => {
    if (state === 'connecting') return;
    resync = { phase: 'due', retryAt: 0 };
    enter('restoring');
  };

  return {
    state: () => state,
    channels(nowUp) {
      up = nowUp;
      if (up && state === 'connecting') enter('online');
      else if (!up) lost();
    },
    unreachable: lost,
    resyncDue(now) {
      if (state !== 'restoring' || !up || resync.phase !== 'due' || now < resync.retryAt) return null;
      resync = { phase: 'running', id: ++resyncs };
      return resyncs;
    },
    resyncEnded(id, ok, now) {
      if (resync.phase !== 'running' || resync.id !== id) return;
      resync = ok ? { phase: 'done' } : { phase: 'due', retryAt: now + RESYNC_RETRY_MS };
    },
    viewComplete(complete) {
      if (state === 'restoring' && up && resync.phase === 'done' && complete) enter('online');
    },
  };
}
