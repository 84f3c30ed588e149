/**
 * One player's network session: wires blocks, presence, live positions, chat, the online
 * count, combat, voice, the restorable blocks and land claims to the engine's queues, and follows
 * the connection (session-link.ts): whenever the live connection comes back after a drop or a
 * server restart it resyncs claims and players (blocks read their chunks again by themselves),
 * and edits made meanwhile are sent once it is back. The engine calls it once per fixed step
 * (`queues.onStep`) with its step number: it then moves the interest with the player (the chunks
 * and regions followed), sends the local pose if it changed and flushes the outbox, so an action
 * goes out in the step it was made.
 *
 * Beside it: the parts made and wired (session-parts.ts), the connection (session-link.ts),
 * entering the world (session-entry.ts),
 * the work of each engine step (session-sync.ts), the outbox sent in order (outbox.ts) and
 * leaving on page close (page-close.ts).
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetQueues } from '../components/network.js';
import { TILE_SIZE } from '../protocol/geometry.js';
import { STEP_MS } from '../protocol/movement.js';
import type { ClaimsFollower } from './claims/claims.js';
import type { ConnectionState } from './connection.js';
import { minimapPlayersFromBlocks, type MinimapPlayer } from './minimap.js';
import { createOutboxSender } from './outbox.js';
import { deletePresenceOnPageClose, followAccessToken } from './page-close.js';
import { enterWorld, type EntryPhase } from './session-entry.js';
import { createSessionLink } from './session-link.js';
import { createSessionParts, type PartsOptions, type SessionParts } from './session-parts.js';
import { createSessionSync } from './session-sync.js';

/** Everything the session needs from the game around it. */
export interface SessionOptions extends PartsOptions {
  db: SupabaseClient;
  /** The backend's URL and public key, for the keep-alive request on page close. */
  url: string;
  anonKey: string;
  queues: NetQueues;
  /** Whether another player is within combat range of the local player in the PvP zone. */
  inCombat(): boolean;
  /** The connection as the player is told it (net/connection.ts): each new state. */
  onConnection(state: ConnectionState): void;
  /**
   * How far the start has come: `joining` (the first heartbeat and the players near by), then
   * `loading-world` (`loaded` of `total` parts of the world), then `ready` once it is in view.
   */
  onProgress?(phase: EntryPhase, loaded: number, total: number): void;
  now?(): number;
}

/** A running session. */
export interface Session {
  /** Resolves to null when sent, or to the reason the message was refused. */
  sendChat(text: string): Promise<string | null>;
  /** Sends a voice clip from the local player's position; false when refused. */
  sendVoice(audioData: string): Promise<boolean>;
  /** Other players known only from their recent blocks (docs/game-rules.md §7 minimap query). */
  minimapFallback(): Promise<MinimapPlayer[]>;
  /** Ids of remote players with fresh presence. */
  onlinePlayers(): string[];
  /** Region channels listened to. */
  poseTopics(): string[];
  /** Land claims near the player, and the LAND panel's requests. */
  claims: ClaimsFollower;
  /** Block chunks held, as 'cx:cy' (net/chunks.ts). */
  heldChunks(): string[];
  /** Block topics listened to. */
  blockTopics(): string[];
  /** The connection's state now. */
  connection(): ConnectionState;
  /** Best-effort removal of the presence row while the page is closing. */
  leaveOnPageClose(): void;
  /** Deletes the presence row and closes every channel. */
  close(): Promise<void>;
}

/**
 * After a reconnect: the restorable blocks are marked stale, the presence row written, the players
 * near by and the claims read again, all at once; it succeeded when the row was written and the
 * players read.
 */
async function resync({ restorable, presence, claims }: SessionParts): Promise<boolean> {
  restorable.markStale();
  const [written, players] = await Promise.all([presence.heartbeat(), presence.load(), claims.reload()]);
  return written && players;
}

/** Starts the session: loads the world and players, then follows them live. */
export async function startSession(options: SessionOptions): Promise<Session> {
  const { db, playerId, queues } = options;
  // Channels join with the token Realtime holds when they subscribe: make it the player's
  // session token first, or the first joins would read as anon, which may read nothing.
  await db.realtime.setAuth();
  const now = options.now ?? Date.now;
  const emit = queues.inbox.push.bind(queues.inbox);
  const accessToken = followAccessToken(db, options.anonKey);
  const tile = () => {
    const local = options.readLocal();
    return { x: Math.floor(local.x / TILE_SIZE), y: Math.floor(local.y / TILE_SIZE) };
  };
  const link = createSessionLink({
    onConnection: options.onConnection,
    resync: () => resync(parts),
    viewCurrent: () => parts.blocks.viewCurrent(),
    now,
  });
  const parts = createSessionParts(db, options, { emit, now, tile, onConnected: link.channels });
  const { interest, blocks, presence, poses, chat, combat, voice, claims } = parts;
  const entry = enterWorld(interest, presence, blocks, options.readLocal(), options.onProgress ?? (() => undefined));
  const sender = createOutboxSender(blocks, combat, link);
  const sync = createSessionSync(
    { readLocal: options.readLocal, inCombat: options.inCombat, now, outbox: queues.outbox, clockStep: Math.floor(now() / STEP_MS) },
    { interest, presence, poses, entry, sender, link },
  );
  queues.onStep = sync.run;

  return {
    sendChat: (text) => chat.send(text),
    sendVoice: (audioData) => {
      const local = options.readLocal();
      return voice.send(audioData, local.x, local.y);
    },
    minimapFallback: () => {
      const { x, y } = tile();
      return minimapPlayersFromBlocks(db, playerId, now(), x, y);
    },
    onlinePlayers: () => presence.online(),
    poseTopics: () => poses.topics(),
    claims,
    heldChunks: () => blocks.heldChunks(),
    blockTopics: () => blocks.topics(),
    connection: link.state,
    leaveOnPageClose: () => deletePresenceOnPageClose(options.url, options.anonKey, accessToken.current(), playerId),
    async close() {
      sync.stop();
      if (queues.onStep === sync.run) queues.onStep = undefined;
      parts.online.stop();
      parts.restorable.stop();
      accessToken.stop();
      // Edits still waiting for the connection are dropped: the session ends.
      link.close();
      // The heartbeat stops and the row goes whatever else fails here (a server already gone).
      try {
        await sender.drained();
        await Promise.allSettled([blocks.close(), poses.close(), chat.close(), combat.close(), voice.close(), claims.close()]);
      } finally {
        await presence.leave();
      }
    },
  };
}
