import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Conn } from './channel.js';
import {
  MAX_QUEUED_BROADCAST_BYTES,
  MAX_QUEUED_DURABLE_BYTES,
  OUTBOUND_HIGH_WATER_BYTES,
  UNREAD_OVERFLOW,
} from './limits.js';

/**
 * After a close with {@link UNREAD_OVERFLOW} the peer has this long to read what it was sent and
 * the close frame (which then tells it why) before the socket is ended outright.
 */
const CLOSE_GRACE_MS = 5000;
/** Policy violation: the peer did not read what it asked for. */
const CLOSE_UNREAD = 1008;

interface Queued {
  data: Buffer;
  binary: boolean;
}

/** Sockets corked during this turn of the event loop; all are uncorked together once it ends. */
const corked = new Set<Duplex>();

function uncorkAll(): void {
  for (const socket of corked) socket.uncork();
  corked.clear();
}

/**
 * Holds `socket`'s writes until the current turn of the event loop is over (every I/O callback
 * of this poll phase), so the frames a socket is sent in one turn (a batch of changes, the poses
 * of many senders) leave in one system call instead of one each.
 */
function corkForThisTurn(socket: Duplex): void {
  if (corked.has(socket)) return;
  if (corked.size === 0) setImmediate(uncorkAll);
  corked.add(socket);
  socket.cork();
}

/**
 * One socket's way out. Messages go to `ws`'s own send (which frames them; the same Buffer is
 * shared by every socket a message goes to) while the socket has taken less than
 * {@link OUTBOUND_HIGH_WATER_BYTES}; beyond that they wait here, bounded:
 *
 * * ephemeral messages (broadcasts) are kept per key, the newest replacing the older one (latest
 *   pose per sender wins), and the oldest are dropped past {@link MAX_QUEUED_BROADCAST_BYTES};
 * * durable messages (replies, system messages, postgres_changes) keep their order; past
 *   {@link MAX_QUEUED_DURABLE_BYTES} the socket is closed with {@link UNREAD_OVERFLOW}, and the
 *   client resubscribes and resyncs as after a restart.
 *
 * Nothing is written once the WebSocket is no longer open, so no frame follows a close frame.
 */
export class Outbound {
  private readonly durableQueue: Queued[] = [];
  private durableBytes = 0;
  private readonly ephemeralQueue = new Map<string, Queued>();
  private ephemeralBytes = 0;
  private closing = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    private readonly onOverflow: (queuedBytes: number) => void,
  ) {
    socket.on('drain', () => this.flush());
  }

  /** Bytes waiting in this queue (not yet handed to the socket). */
  get queuedBytes(): number {
    return this.durableBytes + this.ephemeralBytes;
  }

  /** Sends or queues a message that must arrive, in order. */
  durable(data: Buffer, binary: boolean): void {
    if (!this.open()) return;
    if (this.durableQueue.length === 0 && this.ephemeralQueue.size === 0 && this.roomy()) {
      this.send(data, binary);
      return;
    }
    this.durableQueue.push({ data, binary });
    this.durableBytes += data.length;
    if (this.durableBytes > MAX_QUEUED_DURABLE_BYTES) this.overflow();
  }

  /** Sends a message that a newer one under the same `key` may replace while it waits. */
  ephemeral(key: string, data: Buffer, binary: boolean): void {
    if (!this.open()) return;
    if (this.durableQueue.length === 0 && this.ephemeralQueue.size === 0 && this.roomy()) {
      this.send(data, binary);
      return;
    }
    const previous = this.ephemeralQueue.get(key);
    if (previous) {
      this.ephemeralQueue.delete(key);
      this.ephemeralBytes -= previous.data.length;
    }
    this.ephemeralQueue.set(key, { data, binary });
    this.ephemeralBytes += data.length;
    for (const [oldest, queued] of this.ephemeralQueue) {
      if (this.ephemeralBytes <= MAX_QUEUED_BROADCAST_BYTES) break;
      this.ephemeralQueue.delete(oldest);
      this.ephemeralBytes -= queued.data.length;
    }
  }

  private open(): boolean {
    return !this.closing && this.ws.readyState === this.ws.OPEN;
  }

  private send(data: Buffer, binary: boolean): void {
    corkForThisTurn(this.socket);
    this.ws.send(data, { binary });
  }

  private roomy(): boolean {
    return this.ws.bufferedAmount < OUTBOUND_HIGH_WATER_BYTES;
  }

  /** Hands queued messages to the socket while it has room: durable ones first, in order. */
  private flush(): void {
    while (this.open() && this.roomy()) {
      const durable = this.durableQueue.shift();
      if (durable) {
        this.durableBytes -= durable.data.length;
        this.send(durable.data, durable.binary);
        continue;
      }
      const next = this.ephemeralQueue.entries().next();
      if (next.done) return;
      const [key, queued] = next.value;
      this.ephemeralQueue.delete(key);
      this.ephemeralBytes -= queued.data.length;
      this.send(queued.data, queued.binary);
    }
  }

  private overflow(): void {
    const queued = this.queuedBytes;
    this.closing = true;
    this.durableQueue.length = 0;
    this.ephemeralQueue.clear();
    this.durableBytes = 0;
    this.ephemeralBytes = 0;
    this.onOverflow(queued);
    this.ws.close(CLOSE_UNREAD, UNREAD_OVERFLOW);
    // A peer that does not read will not answer the close frame either.
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
  }
}

/** The bytes of a message's text, encoded once and shared by every socket it is sent to. */
export function textFrame(text: string): Buffer {
  return Buffer.from(text);
}

/** Sends postgres_changes messages (see {@link textFrame}) to a connection, as durable messages. */
export function writeFrames(conn: Conn, frames: Buffer[]): void {
  for (const frame of frames) conn.outbound.durable(frame, false);
}
