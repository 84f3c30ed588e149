import { JoinError } from './bindings.js';
import type { Conn } from './channel.js';
import { updateToken } from './channel-rights.js';
import { errorMessage } from './guard.js';
import type { Hub } from './hub.js';
import { join, noJoinsUnderWay } from './join.js';
import type { JoinsUnderWay } from './join.js';
import { MAX_NAME_BYTES, TOO_MANY_MESSAGES } from './limits.js';
import { close, leave } from './membership.js';
import { MalformedFrame, decodeBinary, decodeText } from './protocol.js';
import type { BroadcastPush, Message } from './protocol.js';
import { broadcast, presence, textBroadcast } from './pushes.js';
import { reply, send } from './replies.js';

/**
 * One served socket: its connection, the hub, the chain its frames are handled on in order, the
 * lanes of topics with a join under way, its joins under way, and whether it is shedding.
 */
interface Served {
  conn: Conn;
  hub: Hub;
  /** Every frame (and session end, and the close) is read after the one before it, and handled then unless it goes to a lane. */
  chain: Promise<void>;
  /**
   * Per topic with a join under way, the end of its lane: a join, and the topic's frames read
   * after it, are handled there in order, while the chain goes on with other topics' frames.
   */
  lanes: Map<string, Promise<void>>;
  joins: JoinsUnderWay;
  /** Set once the socket spent its message budget; cleared when the budget refills. */
  shedding: boolean;
}

/** A frame as read off the socket: the message, its binary broadcast (if it came as one), its size and when it arrived. */
interface Frame {
  msg: Message;
  fromBinary: BroadcastPush | null;
  size: number;
  /** The frame was already paid for from the socket's budget (the one that ended shedding). */
  paid: boolean;
  /** When it reached the socket (performance.now()). */
  arrived: number;
}

/** Answers a `phoenix` topic message: a heartbeat is acknowledged, anything else refused. */
function heartbeat(conn: Conn, msg: Message): void {
  if (msg.event === 'heartbeat') reply(conn, msg, 'ok', {});
  else reply(conn, msg, 'error', { reason: `unknown event ${msg.event} on topic phoenix` });
}

/**
 * Runs one message: heartbeats and joins first (joins have their own budget), then every other
 * message is paid from the socket's budget (past it the socket sheds and the channel is closed)
 * and handed to its joined channel's handler.
 */
async function handle(served: Served, frame: Frame): Promise<void> {
  const { conn, hub } = served;
  const { msg, fromBinary } = frame;
  if (msg.topic === 'phoenix') return heartbeat(conn, msg);
  if (msg.event === 'phx_join') return join(hub, conn, msg, frame.arrived, served.joins);
  const channel = conn.channels.get(msg.topic);
  if (!frame.paid && !conn.messages.take()) {
    served.shedding = true;
    if (channel) close(hub, channel, TOO_MANY_MESSAGES);
    return;
  }
  if (!channel) {
    reply(conn, msg, 'error', { reason: 'unmatched topic' });
    return;
  }
  switch (msg.event) {
    case 'phx_leave':
      leave(hub, channel);
      reply(conn, msg, 'ok', {});
      return;
    case 'access_token':
      return updateToken(hub, channel, msg);
    case 'broadcast':
      if (fromBinary) return broadcast(hub, channel, msg, fromBinary.payload, fromBinary.persist, frame.size);
      return broadcast(hub, channel, msg, textBroadcast(msg), false, frame.size);
    case 'presence':
      return presence(hub, channel, msg);
    default:
      reply(conn, msg, 'error', { reason: `unsupported event ${msg.event}` });
  }
}

/** The message of a frame (binary broadcasts need vsn 2.0.0); a malformed frame throws {@link MalformedFrame}. */
function decode(conn: Conn, data: Buffer, isBinary: boolean): { msg: Message; fromBinary: BroadcastPush | null } {
  if (!isBinary) return { msg: decodeText(data.toString('utf8'), conn.vsn), fromBinary: null };
  if (conn.vsn !== '2.0.0') throw new MalformedFrame('binary frames need vsn 2.0.0');
  const fromBinary = decodeBinary(data);
  return { msg: fromBinary, fromBinary };
}

/** Decodes and handles one frame that reached the socket at `arrived` (performance.now()). */
async function receive(served: Served, data: Buffer, isBinary: boolean, arrived: number): Promise<void> {
  const { conn } = served;
  // Past its budget a socket's frames are dropped unread until the budget refills, so a flood
  // costs no decoding.
  let paid = false;
  if (served.shedding) {
    if (!conn.messages.take()) return;
    served.shedding = false;
    paid = true;
  }
  let decoded: { msg: Message; fromBinary: BroadcastPush | null };
  try {
    decoded = decode(conn, data, isBinary);
  } catch (error) {
    if (!(error instanceof MalformedFrame)) throw error;
    send(conn, { joinRef: null, ref: null, topic: 'phoenix', event: 'phx_error', payload: { reason: error.message } });
    return;
  }
  const { msg } = decoded;
  const frame: Frame = { ...decoded, size: data.length, paid, arrived };
  const run = () => handleAnswering(served, frame);
  // A join does not hold up the socket's other topics; its topic's later frames wait for it.
  if (msg.topic !== 'phoenix' && (msg.event === 'phx_join' || served.lanes.has(msg.topic))) onLane(served, msg.topic, run);
  else await run();
}

/** Handles a frame; a failure is answered with an error reply naming a refusal's reason, or `internal error` (logged). */
async function handleAnswering(served: Served, frame: Frame): Promise<void> {
  const { conn, hub } = served;
  const { msg } = frame;
  try {
    await handle(served, frame);
  } catch (error) {
    const reason = error instanceof JoinError || error instanceof MalformedFrame ? error.message : 'internal error';
    if (reason === 'internal error') hub.log(`realtime: ${msg.event} on ${msg.topic.slice(0, MAX_NAME_BYTES)} failed: ${errorMessage(error)}`);
    reply(conn, msg, 'error', { reason });
  }
}

/** Logs a failure of `what` on the socket's chain or a lane. */
const logFailure = (served: Served, what: string) => (error: unknown) => served.hub.log(`realtime: ${what}${errorMessage(error)}`);

/** Queues `work` on the socket's chain, logging (as `what`) a failure instead of breaking the chain. */
function queue(served: Served, what: string, work: () => void | Promise<void>): void {
  served.chain = served.chain.then(work).catch(logFailure(served, what));
}

/**
 * Queues `work` on the lane of `topic`, or starts it at once on a new lane when the topic has
 * none (so joins read the socket's bounds in the order they came); the lane is closed once its
 * last work is done.
 */
function onLane(served: Served, topic: string, work: () => Promise<void>): void {
  const previous = served.lanes.get(topic);
  const tail = (previous ? previous.then(work) : work()).catch(logFailure(served, ''));
  served.lanes.set(topic, tail);
  void tail.then(() => {
    if (served.lanes.get(topic) === tail) served.lanes.delete(topic);
  });
}

/**
 * Queues `work` on the socket's chain, to run once the lanes open by then are done too (their
 * joins in), without holding the chain for them; a failure is logged as `what`.
 */
function queueAfterLanes(served: Served, what: string, work: () => void): void {
  queue(served, what, () => {
    const open = [...served.lanes.values()];
    if (open.length === 0) return work();
    void Promise.all(open).then(work).catch(logFailure(served, what));
  });
}

/**
 * Serves one WebSocket: decodes frames in order and runs the Phoenix channel protocol over them,
 * a topic's frames in order, and joins alongside the other topics' frames.
 */
export function serveConnection(conn: Conn, hub: Hub): void {
  const served: Served = { conn, hub, chain: Promise.resolve(), lanes: new Map(), joins: noJoinsUnderWay(), shedding: false };
  // Queued behind frames and joins under way, so a join that verified its token just before the
  // session ended is closed too.
  const endSession = (sessionId: string) =>
    queueAfterLanes(served, "ending a session's channels failed: ", () => {
      for (const channel of [...conn.channels.values()]) {
        if (channel.claims.session_id === sessionId) close(hub, channel, 'Token has been revoked');
      }
    });
  hub.sessionEnders.add(endSession);
  conn.ws.on('message', (data: Buffer, isBinary: boolean) => {
    const arrived = performance.now();
    queue(served, '', () => receive(served, data, isBinary, arrived));
  });
  conn.ws.on('close', () => {
    hub.sessionEnders.delete(endSession);
    queueAfterLanes(served, 'leaving the channels of a closed socket failed: ', () => {
      for (const channel of [...conn.channels.values()]) leave(hub, channel);
    });
  });
  conn.ws.on('error', (error) => hub.log(`realtime: socket error ${error.message}`));
}
