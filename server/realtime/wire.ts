import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { errorMessage, guarded } from './guard.js';
import { log } from '../log.js';
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

/**
 * How near a broadcast is to the socket it goes to: `near` on the topic the socket itself last
 * broadcast on (a game client speaks on the region it stands in), `far` on any other. Under load
 * far ones are shed first.
 */
export type Nearness = 'near' | 'far';

/** Broadcasts shed since the server started, over every socket, by nearness: see {@link broadcastsShed}. */
const shed: Record<Nearness, number> = { near: 0, far: 0 };

/**
 * Counts `count` broadcasts of `kind` shed: replaced while waiting by a newer one of the same
 * stream, dropped past {@link MAX_QUEUED_BROADCAST_BYTES}, or thinned out of a batch window
 * while the server is late (batches.ts).
 */
export function countShed(kind: Nearness, count = 1): void {
  shed[kind] += count;
}

/** How many broadcasts have been shed so far, by nearness. */
export function broadcastsShedByKind(): Readonly<Record<Nearness, number>> {
  return shed;
}

/**
 * How many broadcasts have been shed so far, of either nearness. It grows only under load the
 * server cannot hand on as fast as it comes: where a crowd starts to shed.
 */
export function broadcastsShed(): number {
  return shed.near + shed.far;
}

/** Messages written to sockets since the server started, for the metrics. */
let sent = 0;

/** How many messages the server has written to Realtime sockets so far. */
export function messagesSent(): number {
  return sent;
}

/**
 * The messages one socket was due in a turn and their frames in one buffer: the next socket due
 * the very same messages in the same order (every subscriber of a batch of changes) is written
 * the same buffer instead of a copy of its own.
 */
interface Framed {
  data: Buffer[];
  binary: boolean[];
  bytes: Buffer;
}

/** Writes every queue due this turn; one socket whose write fails is ended, the others are written. */
function writeAllDue(): void {
  const now = [...due];
  due.clear();
  let last: Framed | null = null;
  for (const outbound of now) {
    try {
      last = outbound.writeDue(last);
    } catch (error) {
      log.error(`realtime: writing to a socket failed: ${errorMessage(error)}`);
      outbound.abandon();
    }
  }
}

function sameMessages(framed: Framed, data: Buffer[], binary: boolean[]): boolean {
  if (framed.data.length !== data.length) return false;
  for (let i = 0; i < data.length; i++) if (framed.data[i] !== data[i] || framed.binary[i] !== binary[i]) return false;
  return true;
}

/** `data` and `binary` as consecutive frames in one buffer of `bytes` bytes. */
function frameAll(data: Buffer[], binary: boolean[], bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (let i = 0; i < data.length; i++) {
    at = writeHeader(out, at, data[i]!.length, binary[i]!);
    at += data[i]!.copy(out, at);
  }
  return out;
}

/** A first-in first-out list whose `shift` takes constant time (an array's is linear in its length). */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head === this.items.length) this.clear();
    else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
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
 * shared by every socket it goes to, and so is the framed buffer of a turn among the sockets due
 * the same messages (see {@link Framed}). The WebSocket's own state decides what is written: nothing
 * once it is no longer open, so no frame follows a close frame (the one close made here, on
 * overflow, writes what is due first). `ws` itself then only answers pings and closes.
 *
 * Messages are handed on while the socket holds less than {@link OUTBOUND_HIGH_WATER_BYTES}
 * (due here, in `ws` and in the kernel); beyond that they wait here, bounded:
 *
 * * ephemeral messages (broadcasts) are kept per key, the newest replacing the older one (latest
 *   pose per sender wins); past {@link MAX_QUEUED_BROADCAST_BYTES} the oldest far ones are
 *   dropped first, then the oldest near ones, and near ones are handed on before far ones
 *   (see {@link Nearness});
 * * durable messages (replies, system messages, postgres_changes, stored broadcasts such as the
 *   world's block changes) keep their order and are never dropped; past
 *   {@link MAX_QUEUED_DURABLE_BYTES} the socket is closed with {@link UNREAD_OVERFLOW}, and the
 *   client resubscribes and resyncs as after a restart.
 */
export class Outbound {
  private readonly durableQueue = new Fifo<Queued>();
  private durableBytes = 0;
  /** Waiting broadcasts by key, near ones and far ones apart. */
  private readonly ephemeralQueues: Record<Nearness, Map<string, Queued>> = { near: new Map(), far: new Map() };
  private ephemeralBytes = 0;
  /** The topic (with `realtime:`) this socket last broadcast on: its broadcasts are near, the others far. */
  nearTopic: string | null = null;
  /** Messages handed on in this turn (their bytes, and whether each is binary), written together by {@link writeDue}. */
  private dueData: Buffer[] = [];
  private dueBinary: boolean[] = [];
  private dueBytes = 0;
  private closing = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    private readonly onOverflow: (queuedBytes: number) => void,
  ) {
    socket.on('drain', guarded('handing queued messages to a socket', () => this.flush(), () => this.abandon()));
  }

  /** Bytes waiting in this queue (not yet handed to the socket). */
  get queuedBytes(): number {
    return this.durableBytes + this.ephemeralBytes;
  }

  /** Sends or queues a message that must arrive, in order. */
  durable(data: Buffer, binary: boolean): void {
    if (!this.open()) return;
    if (this.durableQueue.length === 0 && this.ephemeralWaiting() === 0 && this.roomy()) {
      this.send(data, binary);
      return;
    }
    this.durableQueue.push({ data, binary });
    this.durableBytes += data.length;
    if (this.durableBytes > MAX_QUEUED_DURABLE_BYTES) this.overflow();
  }

  /** Whether a broadcast on `topic` is near this socket or far from it. */
  nearness(topic: string): Nearness {
    return this.nearTopic === null || this.nearTopic === topic ? 'near' : 'far';
  }

  /**
   * Sends a broadcast on `topic` that a newer one under the same `key` may replace while it
   * waits; past the bound the oldest far broadcasts are dropped before any near one.
   */
  ephemeral(key: string, data: Buffer, binary: boolean, topic: string): void {
    if (!this.open()) return;
    if (this.durableQueue.length === 0 && this.ephemeralWaiting() === 0 && this.roomy()) {
      this.send(data, binary);
      return;
    }
    const kind = this.nearness(topic);
    const queue = this.ephemeralQueues[kind];
    const previous = queue.get(key);
    if (previous) {
      queue.delete(key);
      this.ephemeralBytes -= previous.data.length;
      countShed(kind);
    }
    queue.set(key, { data, binary });
    this.ephemeralBytes += data.length;
    for (const dropFrom of ['far', 'near'] as const) this.dropOldest(dropFrom);
  }

  /** Drops the oldest broadcasts of `kind` while the waiting ones are past their bound. */
  private dropOldest(kind: Nearness): void {
    const queue = this.ephemeralQueues[kind];
    for (const [oldest, queued] of queue) {
      if (this.ephemeralBytes <= MAX_QUEUED_BROADCAST_BYTES) return;
      queue.delete(oldest);
      this.ephemeralBytes -= queued.data.length;
      countShed(kind);
    }
  }

  private ephemeralWaiting(): number {
    return this.ephemeralQueues.near.size + this.ephemeralQueues.far.size;
  }

  private open(): boolean {
    return !this.closing && this.ws.readyState === this.ws.OPEN;
  }

  private send(data: Buffer, binary: boolean): void {
    if (this.dueData.length === 0) {
      if (due.size === 0) setImmediate(writeAllDue);
      due.add(this);
    }
    this.dueData.push(data);
    this.dueBinary.push(binary);
    this.dueBytes += headerLength(data.length) + data.length;
  }

  /**
   * Writes the messages handed on in this turn, framed, in one buffer (dropped if the WebSocket
   * is no longer open), then hands on what waits in the queues if the socket took it all at
   * once: no `drain` will come to do it. `previous` is what the socket before in this turn was
   * written, reused when its messages are the same; returns what this socket was written.
   */
  writeDue(previous: Framed | null): Framed | null {
    const data = this.dueData;
    const binary = this.dueBinary;
    const bytes = this.dueBytes;
    this.dueData = [];
    this.dueBinary = [];
    this.dueBytes = 0;
    if (data.length === 0 || this.ws.readyState !== this.ws.OPEN) return previous;
    const framed = previous && sameMessages(previous, data, binary) ? previous : { data, binary, bytes: frameAll(data, binary, bytes) };
    sent += data.length;
    if (this.socket.write(framed.bytes)) this.flush();
    return framed;
  }

  private roomy(): boolean {
    return this.ws.bufferedAmount + this.dueBytes < OUTBOUND_HIGH_WATER_BYTES;
  }

  /** Hands queued messages to the socket while it has room: durable ones first, in order, then near broadcasts, then far ones. */
  private flush(): void {
    while (this.open() && this.roomy()) {
      const durable = this.durableQueue.shift();
      if (durable) {
        this.durableBytes -= durable.data.length;
        this.send(durable.data, durable.binary);
        continue;
      }
      const queue = this.ephemeralQueues.near.size > 0 ? this.ephemeralQueues.near : this.ephemeralQueues.far;
      const next = queue.entries().next();
      if (next.done) return;
      const [key, queued] = next.value;
      queue.delete(key);
      this.ephemeralBytes -= queued.data.length;
      this.send(queued.data, queued.binary);
    }
  }

  /** Drops everything queued and ends the socket at once: what a failure to write it leaves. */
  abandon(): void {
    this.closing = true;
    this.durableQueue.clear();
    this.ephemeralQueues.near.clear();
    this.ephemeralQueues.far.clear();
    this.durableBytes = 0;
    this.ephemeralBytes = 0;
    this.dueData = [];
    this.dueBinary = [];
    this.dueBytes = 0;
    due.delete(this);
    this.ws.terminate();
  }

  private overflow(): void {
    const queued = this.queuedBytes;
    this.closing = true;
    this.durableQueue.clear();
    this.ephemeralQueues.near.clear();
    this.ephemeralQueues.far.clear();
    this.durableBytes = 0;
    this.ephemeralBytes = 0;
    this.onOverflow(queued);
    this.writeDue(null);
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
