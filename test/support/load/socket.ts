/**
 * One bot's raw Realtime websocket: Phoenix vsn 2.0.0 as realtime-js speaks it (wire.ts), with
 * channels joined and left by topic, broadcasts pushed as binary frames, and what arrives handed
 * to the bot; a refused join is made again after realtime-js's waits. No timers: the fleet's tick
 * calls {@link BotSocket.tick} for the socket heartbeat and the rejoins.
 */
import WebSocket from 'ws';
import type { LoadFigures } from './figures.js';
import { broadcastPush, joinPayload, readBroadcast, SOCKET_HEARTBEAT_MS, textFrame, type ChangeBinding, type ChannelConfig, type ReceivedBroadcast } from './wire.js';

/** A channel of the socket, by topic (without `realtime:`). */
export interface BotChannel {
  topic: string;
  joinRef: string;
  joined: boolean;
  /** The join's payload, sent again on a rejoin. */
  payload: string;
  /** Refused joins in a row. */
  tries: number;
  /** When it joins again after a refusal (ms since the epoch; 0: not waiting). */
  rejoinAt: number;
}

/** Wait before joining again after the `tries`-th refused join, as realtime-js's channels wait. */
export function rejoinAfterMs(tries: number): number {
  return [1000, 2000, 5000][tries - 1] ?? 10_000;
}

/** What the socket tells its bot. */
export interface SocketListener {
  /** A channel's join was answered ok. */
  joined(channel: BotChannel): void;
  /** A binary broadcast arrived. */
  broadcast(message: ReceivedBroadcast): void;
  /** The socket closed. */
  closed(): void;
}

/** A channel's topic as it travels: with the `realtime:` prefix. */
const wireTopic = (topic: string) => `realtime:${topic}`;

/** Milliseconds a socket may take to open before it fails: a bot never waits forever to enter. */
export const HANDSHAKE_TIMEOUT_MS = 60_000;

/** A Phoenix socket of one bot; see the module comment. */
export class BotSocket {
  private readonly ws: WebSocket;
  private ref = 0;
  /** Channels by wire topic. */
  private readonly channels = new Map<string, BotChannel>();
  private nextHeartbeat = 0;
  /** Channels waiting to join again. */
  private rejoins: BotChannel[] = [];
  /** Resolves once the socket is open. */
  readonly opened: Promise<void>;

  /** A socket to the server at `serverUrl`, from the loopback source address `localAddress` when given. */
  constructor(serverUrl: string, anonKey: string, private readonly figures: LoadFigures, private readonly listener: SocketListener, localAddress?: string) {
    this.ws = new WebSocket(`${serverUrl.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${anonKey}&vsn=2.0.0`, { localAddress, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
    this.opened = new Promise((resolve, reject) => this.ws.once('open', resolve).once('error', reject));
    this.ws.on('message', (data: Buffer, isBinary: boolean) => this.receive(data, isBinary));
    this.ws.on('close', () => {
      if (this.figures.recording) this.figures.disconnects++;
      this.listener.closed();
    });
    this.ws.on('error', () => undefined);
  }

  /** Whether the socket is open. */
  open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Joins `topic` with `config` and `bindings`, signed with `accessToken`. */
  join(topic: string, config: ChannelConfig, bindings: readonly ChangeBinding[], accessToken: string): BotChannel {
    const channel: BotChannel = { topic, joinRef: '', joined: false, payload: joinPayload(config, bindings, accessToken), tries: 0, rejoinAt: 0 };
    this.channels.set(wireTopic(topic), channel);
    this.sendJoin(channel);
    return channel;
  }

  private sendJoin(channel: BotChannel): void {
    const ref = String(++this.ref);
    channel.joinRef = ref;
    this.send(textFrame(ref, ref, wireTopic(channel.topic), 'phx_join', channel.payload));
  }

  /** Leaves `channel` (a no-op for a channel already replaced on its topic). */
  leave(channel: BotChannel): void {
    const key = wireTopic(channel.topic);
    if (this.channels.get(key) === channel) this.channels.delete(key);
    this.send(textFrame(channel.joinRef, String(++this.ref), key, 'phx_leave', '{}'));
  }

  /** Pushes a JSON broadcast of `event` on a joined `channel`. */
  broadcast(channel: BotChannel, event: string, payloadJson: string): void {
    this.send(broadcastPush(channel.joinRef, String(++this.ref), wireTopic(channel.topic), event, payloadJson));
  }

  /** Sends the socket heartbeat when due (every SOCKET_HEARTBEAT_MS from the first call) and the rejoins that are due. */
  tick(now: number): void {
    if (this.rejoins.length > 0) this.rejoinDue(now);
    if (this.nextHeartbeat === 0) this.nextHeartbeat = now + SOCKET_HEARTBEAT_MS;
    else if (now >= this.nextHeartbeat) {
      this.nextHeartbeat += SOCKET_HEARTBEAT_MS;
      this.send(textFrame(null, String(++this.ref), 'phoenix', 'heartbeat', '{}'));
    }
  }

  private rejoinDue(now: number): void {
    const waiting: BotChannel[] = [];
    for (const channel of this.rejoins) {
      // A channel left or replaced meanwhile is not joined again.
      if (this.channels.get(wireTopic(channel.topic)) !== channel) continue;
      if (now >= channel.rejoinAt) {
        channel.rejoinAt = 0;
        this.sendJoin(channel);
      } else waiting.push(channel);
    }
    this.rejoins = waiting;
  }

  /** Closes the socket. */
  close(): void {
    this.ws.close();
  }

  private send(frame: string | Buffer): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frame);
  }

  private receive(data: Buffer, isBinary: boolean): void {
    const figures = this.figures;
    if (figures.recording) figures.bytes += data.length;
    if (isBinary) {
      const message = readBroadcast(data);
      if (message) this.listener.broadcast(message);
      return;
    }
    const [joinRef, ref, topic, event, payload] = JSON.parse(data.toString()) as [string | null, string | null, string, string, Record<string, unknown>];
    const channel = this.channels.get(topic);
    if (event === 'phx_reply') {
      // Only the answer to the join itself (its ref is the join's): leaves and pushes are answered too.
      if (!channel || channel.joinRef !== joinRef || ref !== joinRef || channel.joined) return;
      if (payload.status === 'ok') {
        channel.joined = true;
        channel.tries = 0;
        this.listener.joined(channel);
        return;
      }
      // Numbers as N (a region's coordinates), so refusals of a kind count together.
      figures.refuse(`join ${String((payload.response as { reason?: unknown } | undefined)?.reason ?? payload.status).replace(/-?\d+/g, 'N')}`);
      channel.rejoinAt = Date.now() + rejoinAfterMs(++channel.tries);
      this.rejoins.push(channel);
    } else if (event === 'system') {
      if (payload.status !== 'ok') figures.refuse(`system ${String(payload.message)}`);
    } else if (event === 'phx_close' || event === 'phx_error') {
      if (channel && channel.joinRef === joinRef) {
        channel.joined = false;
        figures.refuse(`${event} ${topic.replace(/-?\d+/g, 'N')}`);
      }
    }
  }
}
