import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import type { TestPlayer, TestServer } from './harness.js';
import { waitFor } from './wait.js';

/** How a supabase-js subscribe ended: SUBSCRIBED, or the error status with the server's reason. */
export interface Joined {
  channel: RealtimeChannel;
  status: string;
  reason: string | null;
  /** Broadcast payloads received on the channel, every event. */
  heard: Record<string, unknown>[];
}

/**
 * Joins `topic` on `client` with `config` and resolves once the server answered, ok or not.
 * Every broadcast the channel then receives is kept in `heard`.
 */
export async function joinChannel(client: SupabaseClient, topic: string, config: Record<string, unknown>): Promise<Joined> {
  const heard: Record<string, unknown>[] = [];
  const channel = client.channel(topic, { config }).on('broadcast', { event: '*' }, ({ payload }) => heard.push(payload as Record<string, unknown>));
  const { status, reason } = await new Promise<{ status: string; reason: string | null }>((resolve) =>
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED' || status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') resolve({ status, reason: error?.message ?? null });
    }),
  );
  return { channel, status, reason, heard };
}

/**
 * Subscribes `channel` and resolves with it once the server confirmed the join; a refused or
 * timed-out join rejects with its error. What happens after the join (a later close) is the
 * caller's to watch.
 */
export function subscribeChannel(channel: RealtimeChannel): Promise<RealtimeChannel> {
  return new Promise((resolve, reject) =>
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve(channel);
      else if (status !== 'CLOSED') reject(error ?? new Error(status));
    }),
  );
}

/** Joins a region topic as the game does (private, no self echo) and expects it to succeed. */
export async function joinRegion(client: SupabaseClient, topic: string, ack = false): Promise<Joined> {
  const joined = await joinChannel(client, topic, { private: true, broadcast: { self: false, ack } });
  if (joined.status !== 'SUBSCRIBED') throw new Error(`${topic}: ${joined.status} ${joined.reason}`);
  return joined;
}

/** The player's user id (`auth.uid()` in policies), read from its session. */
export async function userIdOf(player: TestPlayer): Promise<string> {
  const { data } = await player.client.auth.getSession();
  if (!data.session) throw new Error('not signed in');
  return data.session.user.id;
}

/** The player's access token, as supabase-js sends it in `phx_join`. */
export async function accessToken(player: TestPlayer): Promise<string> {
  const { data } = await player.client.auth.getSession();
  if (!data.session) throw new Error('not signed in');
  return data.session.access_token;
}

/** The claims of the player's access token as JSON text, as the server sets them in `request.jwt.claims` for its requests. */
export async function claimsText(player: TestPlayer): Promise<string> {
  return Buffer.from((await accessToken(player)).split('.')[1]!, 'base64url').toString('utf8');
}

/** A raw Phoenix client (vsn 2.0.0): every received frame is kept, text parsed as JSON, binary as Buffer. */
export interface RawSocket {
  ws: WebSocket;
  frames: unknown[];
  /** Bytes received so far, text and binary. */
  bytes: number;
  closed: { code: number; reason: string } | null;
  send(frame: unknown): void;
  /** Waits for (and removes) a received frame that `match` accepts. */
  take(match: (frame: unknown) => boolean, ms?: number): Promise<unknown>;
}

/** Opens a raw socket on `server` with `apikey` (the anon key unless given). */
export async function rawSocket(server: Pick<TestServer, 'url' | 'anonKey'>, apikey = server.anonKey): Promise<RawSocket> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${apikey}&vsn=2.0.0`);
  const socket: RawSocket = {
    ws,
    frames: [],
    bytes: 0,
    closed: null,
    send: (frame) => ws.send(Buffer.isBuffer(frame) ? frame : JSON.stringify(frame)),
    async take(match, ms = 3000) {
      const index = await waitFor(() => socket.frames.findIndex(match) + 1, {
        timeout: ms,
        interval: 10,
        message: () => `a matching frame in ${JSON.stringify(socket.frames).slice(0, 400)}`,
      });
      return socket.frames.splice(index - 1, 1)[0];
    },
  };
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    socket.bytes += data.length;
    socket.frames.push(isBinary ? data : JSON.parse(data.toString()));
  });
  ws.on('close', (code, reason) => (socket.closed = { code, reason: reason.toString() }));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return socket;
}

/** Matches the `phx_reply` to `ref`. */
export const replyTo = (ref: string) => (frame: unknown) => Array.isArray(frame) && frame[1] === ref && frame[3] === 'phx_reply';

/** The `response` of a `phx_reply` frame. */
export const responseOf = (frame: unknown) => (frame as [null, string, string, string, { status: string; response: Record<string, unknown> }])[4];

/** A user broadcast push (kind 3) as realtime-js encodes it; encoding 1 is JSON, 0 raw bytes. */
export function binaryPush(joinRef: string, ref: string, topic: string, event: string, body: Buffer, encoding: 0 | 1): Buffer {
  const parts = [joinRef, ref, topic, event].map((s) => Buffer.from(s));
  return Buffer.concat([Buffer.from([3, ...parts.map((p) => p.length), 0, encoding]), ...parts, body]);
}

/** Reads a binary user broadcast (kind 4): topic, event and the JSON payload. */
export function readBroadcast(frame: Buffer): { topic: string; event: string; payload: Record<string, unknown> } {
  const [, topicLength, eventLength, metaLength] = frame;
  const topic = frame.toString('utf8', 5, 5 + topicLength);
  const event = frame.toString('utf8', 5 + topicLength, 5 + topicLength + eventLength);
  const body = frame.subarray(5 + topicLength + eventLength + metaLength);
  return { topic, event, payload: JSON.parse(body.toString()) as Record<string, unknown> };
}

/** What {@link awaitDatabaseMarker} sends its marker with: the operator connection, or any pg client. */
export interface MarkerSender {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

let markers = 0;
/** Milliseconds after which {@link awaitDatabaseMarker} sends its marker again: one sent while the database broadcast budget was spent is dropped. */
const MARKER_RESEND_MS = 250;

/**
 * Waits until a broadcast the database sends after everything committed so far reaches
 * `client`'s socket: the barrier a "nothing else arrived" assertion waits on instead of a pause.
 * The server drains changes and realtime.messages inserts in commit order, hands each drain's
 * postgres_changes on before its broadcasts, writes a join's reply, replay and system messages
 * at once, and writes one socket's messages in order (a socket that is behind sends its ordered
 * messages first), so whatever of that was due to this socket earlier has arrived once the
 * marker has. It travels on a public channel of its own, joined and left here, and is sent
 * again until heard (each copy is sent after what it orders, so any one of them will do).
 * Its join counts against the socket's joins per second: not for a socket that is joining a
 * crowd of channels at that moment. Not for a client whose token was set by hand (`realtime.setAuth(token)`): after every join
 * realtime-js asks supabase-js for the token again, which undoes it.
 */
export async function awaitDatabaseMarker(client: SupabaseClient, db: MarkerSender): Promise<void> {
  const topic = `marker:${process.pid}:${++markers}`;
  let heard = false;
  const channel = client.channel(topic).on('broadcast', { event: 'marker' }, () => void (heard = true));
  await subscribeChannel(channel);
  let sent = -Infinity;
  await waitFor(
    async () => {
      if (heard || performance.now() - sent < MARKER_RESEND_MS) return heard;
      sent = performance.now();
      await db.query(`select realtime.send('{}', 'marker', $1, false)`, [topic]);
      return false;
    },
    { message: `the marker on ${topic}` },
  );
  await client.removeChannel(channel);
}
