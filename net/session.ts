/**
 * One player's network session: wires blocks, presence, live positions, chat, the online
 * count, combat and voice to the engine's queues, flushes the outbox, and resyncs blocks and
 * players whenever the live connection comes back after a drop or a server restart.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetQueues } from '../components/network.js';
import { createBlockSync } from './blocks.js';
import { createChat } from './chat.js';
import { createCombat } from './combat.js';
import { TILE_SIZE_PX } from './constants.js';
import { minimapPlayersFromBlocks, type MinimapPlayer } from './minimap.js';
import { followOnlineCount } from './online.js';
import { createPoseChannels, type Pose } from './poses.js';
import { createPresence } from './presence.js';
import type { ChatRow, LocalPlayerState } from './rows.js';
import type { SupportWorld } from './support.js';
import { createVoice, type Listener } from './voice.js';

/** How often the outbox is flushed and the local pose is looked at: once per engine step. */
const FLUSH_MS = 16;
/** Fewest ms between two extra heartbeats sent when the player stops moving. */
const STOP_HEARTBEAT_MS = 1000;

/** Everything the session needs from the game around it. */
export interface SessionOptions {
  db: SupabaseClient;
  /** The backend's URL and public key, for the keep-alive request on page close. */
  url: string;
  anonKey: string;
  playerId: string;
  playerName(): string;
  queues: NetQueues;
  /** The local player's presence fields and pose. */
  readLocal(): LocalPlayerState & Pose;
  world: SupportWorld;
  listener(): Listener;
  playVoice(audioData: string, volume: number): void;
  notice(title: string, description: string): void;
  onChat(messages: readonly ChatRow[]): void;
  onOnlineCount(count: number): void;
  onConnected(connected: boolean): void;
  now?(): number;
}

/** A running session. */
export interface Session {
  /** Resolves to null when sent, or to the reason the message was refused. */
  sendChat(text: string): Promise<string | null>;
  /** Sends a voice clip from the local player's position; false when refused. */
  sendVoice(audioData: string): Promise<boolean>;
  /** Other players known only from their recent blocks (SPEC.md §7 minimap query). */
  minimapFallback(): Promise<MinimapPlayer[]>;
  /** Ids of remote players with fresh presence. */
  onlinePlayers(): string[];
  /** Region channels listened to. */
  poseTopics(): string[];
  /** Best-effort removal of the presence row while the page is closing. */
  leaveOnPageClose(): void;
  /** Deletes the presence row and closes every channel. */
  close(): Promise<void>;
}

/** Starts the session: loads the world and players, then follows them live. */
export async function startSession(options: SessionOptions): Promise<Session> {
  const { db, playerId, queues } = options;
  // Channels join with the token Realtime holds when they subscribe: make it the player's
  // session token first, or the first joins would read as anon, which may read nothing.
  await db.realtime.setAuth();
  const now = options.now ?? Date.now;
  const emit = queues.inbox.push.bind(queues.inbox);
  let accessToken = options.anonKey;
  const { data: authListener } = db.auth.onAuthStateChange((_event, session) => {
    accessToken = session?.access_token ?? options.anonKey;
  });

  const tile = () => {
    const local = options.readLocal();
    return { x: Math.floor(local.x / TILE_SIZE_PX), y: Math.floor(local.y / TILE_SIZE_PX) };
  };

  let everConnected = false;
  let connected = false;
  function onBlocksStatus(status: string) {
    const nowConnected = status === 'SUBSCRIBED';
    if (nowConnected === connected) return;
    connected = nowConnected;
    options.onConnected(connected);
    if (connected && everConnected) void resync();
    everConnected ||= connected;
  }

  const online = followOnlineCount(db, playerId, now, options.onOnlineCount);
  const blocks = createBlockSync(db, {
    onActivity: online.noteActive,
    playerId,
    playerName: options.playerName,
    emit,
    notice: options.notice,
    world: options.world,
    onStatus: onBlocksStatus,
  });
  const presence = createPresence(db, { playerId, readLocal: options.readLocal, emit, now });
  const poses = createPoseChannels(db, { playerId, emit, now });
  const chat = createChat(db, { playerId, playerName: options.playerName, onMessages: options.onChat, onActivity: online.noteActive });
  const combat = createCombat(db, { playerId, playerName: options.playerName, emit });
  const voice = createVoice(db, {
    playerId,
    playerName: options.playerName,
    listener: options.listener,
    play: options.playVoice,
  });

  async function resync() {
    const { x, y } = tile();
    await presence.heartbeat();
    await Promise.all([presence.load(), blocks.load(x, y).catch((error) => console.error('block resync failed:', error))]);
  }

  void (async () => {
    const { x, y } = tile();
    await presence.heartbeat();
    await presence.load();
    await blocks.load(x, y).catch((error) => console.error('loading blocks failed:', error));
  })();

  /** Writes are sent one at a time, in the order the player made them. */
  let flushing = Promise.resolve();
  let wasMoving = false;
  let lastStopBeat = -Infinity;
  const timer = setInterval(() => {
    const pose = options.readLocal();
    poses.update(pose);
    // A player who stops somewhere new is recorded there at once (at most once a second),
    // so presence-based checks such as combat range see where players really stand.
    if (wasMoving && !pose.moving && now() - lastStopBeat >= STOP_HEARTBEAT_MS) {
      lastStopBeat = now();
      void presence.heartbeat();
    }
    wasMoving = pose.moving;
    const actions = queues.outbox.splice(0);
    if (actions.length === 0) return;
    flushing = flushing.then(async () => {
      for (const action of actions) {
        if (action.kind === 'placeBlock') await blocks.place(action.x, action.y, action.blockType);
        else if (action.kind === 'removeBlock') await blocks.remove(action.x, action.y, action.blockType);
        else {
          // The server checks range against presence rows: make ours current first.
          await presence.heartbeat();
          await combat.attack(action);
        }
      }
    });
  }, FLUSH_MS);

  return {
    sendChat: (text) => chat.send(text),
    sendVoice: (audioData) => {
      const local = options.readLocal();
      return voice.send(audioData, local.x, local.y);
    },
    minimapFallback: () => minimapPlayersFromBlocks(db, playerId, now()),
    onlinePlayers: () => presence.online(),
    poseTopics: () => poses.topics(),
    leaveOnPageClose() {
      void fetch(`${options.url.replace(/\/$/, '')}/rest/v1/game_players?player_id=eq.${encodeURIComponent(playerId)}`, {
        method: 'DELETE',
        keepalive: true,
        headers: { apikey: options.anonKey, Authorization: `Bearer ${accessToken}` },
      }).catch(() => undefined);
    },
    async close() {
      clearInterval(timer);
      online.stop();
      authListener.subscription.unsubscribe();
      await flushing;
      await Promise.all([blocks.close(), poses.close(), chat.close(), combat.close(), voice.close()]);
      await presence.leave();
    },
  };
}
