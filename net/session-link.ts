/**
 * The session's connection (net/connection.ts) fed and acted on: the block channels tell when the
 * live connection is up or down, the outbox when a request did not reach the server. After a
 * drop, once the channels are back, it resyncs (the presence row written again, then the players
 * near by and the claims read again, the restorable blocks marked for a read; the blocks read
 * their chunks again by themselves) and checks every engine step whether the view is complete, so
 * the player is told `online` only when back in the world. Edits made meanwhile wait on
 * {@link SessionLink.whenOnline}.
 */
import { createConnectionMachine, type ConnectionState } from './connection.js';
import type { OutboxLink } from './outbox.js';

/** What the link needs from the session. */
export interface SessionLinkOptions {
  /** Each new state, for the player. */
  onConnection(state: ConnectionState): void;
  /** Reads again what may have been missed; resolves to whether it all succeeded. */
  resync(): Promise<boolean>;
  /** Whether every chunk of the view is shown and followed live since its last read. */
  viewCurrent(): boolean;
  now(): number;
}

/** The connection of a session. */
export interface SessionLink extends OutboxLink {
  state(): ConnectionState;
  /** The live block channels came up (true) or all dropped (false). */
  channels(up: boolean): void;
  /** Called once an engine step: starts a resync when one is due and checks the view. */
  step(): void;
  /** The session closes: nothing waits for the connection any more. */
  close(): void;
}

/** A link `connecting` until the channels first come up. */
export function createSessionLink(options: SessionLinkOptions): SessionLink {
  let waiting: Array<(online: boolean) => void> = [];
  let closed = false;
  const machine = createConnectionMachine((state) => {
    options.onConnection(state);
    if (state !== 'online') return;
    const resolve = waiting;
    waiting = [];
    for (const done of resolve) done(true);
  });

  async function runResync(id: number): Promise<void> {
    let ok = false;
    try {
      ok = await options.resync();
    } catch (error) {
      console.error('resync after a reconnect failed:', error);
    }
    machine.resyncEnded(id, ok, options.now());
  }

  return {
    state: machine.state,
    online: () => machine.state() === 'online',
    channels: machine.channels,
    unreachable: machine.unreachable,
    whenOnline() {
      if (closed) return Promise.resolve(false);
      if (machine.state() === 'online') return Promise.resolve(true);
      return new Promise((resolve) => waiting.push(resolve));
    },
    step() {
      if (closed) return;
      const id = machine.resyncDue(options.now());
      if (id !== null) void runResync(id);
      if (machine.state() === 'restoring') machine.viewComplete(options.viewCurrent());
    },
    close() {
      closed = true;
      for (const done of waiting.splice(0)) done(false);
    },
  };
}
