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

/** Outbound queues holding messages for the end of this turn of the event loop. */
const due = new Set<Outbound>();

function writeAllDue(): void {
  const now = [...due];
  due.clear();
  for (const outbound of now) outbound.writeDue();
}

/** Bytes of an unmasked, final, uncompressed WebSocket frame header for a payload of `length` (RFC 6455 §5.2). */
function headerLength(length: number): number {
  return length < 126 ? 2 : length < 65536 ? 4 : 10;
}

/** Writes, at `at` in `target`, the header of a final text or binary frame carrying `length` bytes; returns where the payload starts. */
function writeHeader(target: Buffer, at: number, length: number, binary: boolean): number {
  target[at] = binary ? 0x82 : 0x81;
  if (length < 126) {
    target[at + 1] = length;
    return at + 2;
  }
  if (length < 65536) {
    target[at + 1] = 126;
    target.writeUInt16BE(length, at + 2);
    return at + 4;
  }
  target[at + 1] = 127;
  target.writeBigUInt64BE(BigInt(length), at + 2);
  return at + 10;
}

/**
 * One socket's way out. Messages are framed here and written beneath `ws`: every message a
 * socket is handed in one turn of the event loop (a batch of changes, the poses of many senders)
 * goes out as one buffer in one write once the turn is over, where `ws`'s own `send` makes a
 * header and two stream writes per message and socket. A message's bytes are encoded once and
 * shared by every socket it goes to. The WebSocket's own state decides what is written: nothing
 * once it is no longer open, so no frame follows a close frame (the one close made here, on
 * overflow, writes what is due first). `ws` itself then only answers pings and closes.
 *
 * Messages are handed on while the socket holds less than {@link OUTBOUND_HIGH_WATER_BYTES}
 * (due here, in `ws` and in the kernel); beyond that they wait here, bounded:
 *
 * * ephemeral messages (broadcasts) are kept per key, the newest replacing the older one (latest
 *   pose per sender wins), and the oldest are dropped past {@link MAX_QUEUED_BROADCAST_BYTES};
 * * durable messages (replies, system messages, postgres_changes) keep their order; past
 *   {@link MAX_QUEUED_DURABLE_BYTES} the socket is closed with {@link UNREAD_OVERFLOW}, and the
 *   client resubscribes and resyncs as after a restart.
 */
export class Outbound {
  private readonly durableQueue: Queued[] = [];
  private durableBytes = 0;
  private readonly ephemeralQueue = new Map<string, Queued>();
  private ephemeralBytes = 0;
  /** Messages handed on in this turn, written together by {@link writeDue}. */
  private dueMessages: Queued[] = [];
  private dueBytes = 0;
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
    if (this.dueMessages.length === 0) {
      if (due.size === 0) setImmediate(writeAllDue);
      due.add(this);
    }
    this.dueMessages.push({ data, binary });
    this.dueBytes += headerLength(data.length) + data.length;
  }

  /**
   * Writes the messages handed on in this turn, framed, in one buffer (dropped if the WebSocket
   * is no longer open), then hands on what waits in the queues if the socket took it all at
   * once: no `drain` will come to do it.
   */
  writeDue(): void {
    const messages = this.dueMessages;
    const bytes = this.dueBytes;
    this.dueMessages = [];
    this.dueBytes = 0;
    if (messages.length === 0 || this.ws.readyState !== this.ws.OPEN) return;
    const out = Buffer.allocUnsafe(bytes);
    let at = 0;
    for (const { data, binary } of messages) {
      at = writeHeader(out, at, data.length, binary);
      at += data.copy(out, at);
    }
    if (this.socket.write(out)) this.flush();
  }

  private roomy(): boolean {
    return this.ws.bufferedAmount + this.dueBytes < OUTBOUND_HIGH_WATER_BYTES;
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
    this.writeDue();
    due.delete(this);
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
