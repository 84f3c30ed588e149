/**
 * One player's network session: wires blocks, presence, live positions, chat, the online
 * count, combat, voice, the restorable blocks and land claims to the engine's queues, and resyncs
 * claims and players whenever the live connection comes back after a drop or a server restart
 * (blocks read their chunks again by themselves). The engine calls it once per fixed step
 * (`queues.onStep`): it then follows the player's chunks, sends the local pose if it changed and
 * flushes the outbox, so an action goes out in the step it was made.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { STEP_MS, TILE_SIZE } from '../components/constants.js';
import type { NetQueues } from '../components/network.js';
import type { SupportWorld } from '../components/support.js';
import { createBlockSync } from './blocks.js';
import { followClaims, type ClaimsFollower } from './claims.js';
import { createChat } from './chat.js';
import { createCombat } from './combat.js';
import { minimapPlayersFromBlocks, type MinimapPlayer } from './minimap.js';
import { followOnlineCount } from './online.js';
import { createPoseChannels, type Pose } from './poses.js';
import { createPresence } from './presence.js';
import { followRestorable } from './restorable.js';
import type { ChatRow, LocalPlayerState } from './rows.js';
import { createVoice, type Listener } from './voice.js';

/** Fewest ms between two extra heartbeats sent when the player stops moving. */
const STOP_HEARTBEAT_MS = 1000;
/**
 * Heartbeat period while another player is within combat range in the PvP zone: the server
 * judges hits on presence rows with 250 ms of movement allowance (20250201000400_position_bound.sql).
 */
export const COMBAT_HEARTBEAT_MS = 250;

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
  /** Whether another player is within combat range of the local player in the PvP zone. */
  inCombat(): boolean;
  /** The local world as the engine sees it: which tiles hold a block (for the blocks it may restore). */
  world: Pick<SupportWorld, 'hasBlock'>;
  /** The view's size in pixels, for the chunks to hold (800x600 unless given). */
  view?(): { width: number; height: number };
  listener(): Listener;
  playVoice(audioData: string, volume: number): void;
  notice(title: string, description: string): void;
  onChat(messages: readonly ChatRow[]): void;
  onOnlineCount(count: number): void;
  onConnected(connected: boolean): void;
  /**
   * How far the start has come: `joining` (the first heartbeat and the players near by), then
   * `loading-world` (`loaded` of `total` parts of the world), then `ready` once it is in view.
   */
  onProgress?(phase: 'joining' | 'loading-world' | 'ready', loaded: number, total: number): void;
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
    return { x: Math.floor(local.x / TILE_SIZE), y: Math.floor(local.y / TILE_SIZE) };
  };

  let everConnected = false;
  let connected = false;
  function onBlocksConnected(nowConnected: boolean) {
    if (nowConnected === connected) return;
    connected = nowConnected;
    options.onConnected(connected);
    if (connected && everConnected) void resync();
    everConnected ||= connected;
  }

  const online = followOnlineCount(db, playerId, now, options.onOnlineCount);
  // Claims are heard on the block sync's region channels (net/claims.ts).
  const claims = followClaims(db, { playerId, playerName: options.playerName, tile, emit });
  const blocks = createBlockSync(db, {
    onActivity: online.noteActive,
    playerId,
    playerName: options.playerName,
    emit,
    notice: options.notice,
    view: options.view,
    now,
    onConnected: onBlocksConnected,
    onOwnRemoved: () => restorable.markStale(),
    onClaims: claims.hear,
    onRegionJoined: claims.regionJoined,
  });
  let hitsHeard = 0;
  const presence = createPresence(db, { playerId, readLocal: options.readLocal, emit, now, hitsHeard: () => hitsHeard });
  const poses = createPoseChannels(db, { playerId, peers: presence.peers, emit, now });
  const chat = createChat(db, {
    playerId,
    playerName: options.playerName,
    onMessages: options.onChat,
    onActivity: online.noteActive,
    onArrival: () => emit({ kind: 'chatArrived' }),
  });
  const combat = createCombat(db, {
    playerId,
    playerName: options.playerName,
    emit: (event) => {
      if (event.kind === 'damaged') hitsHeard++;
      emit(event);
    },
  });
  const voice = createVoice(db, {
    playerId,
    playerName: options.playerName,
    listener: options.listener,
    play: (audioData, volume) => {
      emit({ kind: 'voiceStarted', volume });
      options.playVoice(audioData, volume);
    },
  });
  const restorable = followRestorable(db, { playerId, tile, world: options.world, emit });

  async function resync() {
    restorable.markStale();
    await presence.heartbeat();
    await Promise.all([presence.load(), claims.reload()]);
  }

  /** Set once the first heartbeat is recorded: the private region channels admit players with a presence row. */
  let inWorld = false;
  const progress = options.onProgress ?? (() => undefined);
  /** While set, each step reports how many of the view's chunks are shown, until all are. */
  let loadingWorld = false;
  let reportedLoaded = -1;
  /** Reports the view's chunks shown so far; `ready` once every one is. */
  function reportWorldLoading() {
    const { loaded, total } = blocks.viewProgress();
    if (total > 0 && loaded === total) {
      loadingWorld = false;
      progress('ready', 1, 1);
    } else if (loaded !== reportedLoaded) {
      reportedLoaded = loaded;
      progress('loading-world', loaded, total);
    }
  }
  void (async () => {
    const local = options.readLocal();
    presence.follow(local.x, local.y);
    blocks.follow(local.x, local.y);
    progress('joining', 0, 0);
    await presence.heartbeat();
    inWorld = true;
    // The blocks' region channels admit the player once its presence row exists: from here the view's chunks load.
    loadingWorld = true;
    await presence.load();
  })();

  /** Writes are sent one at a time, in the order the player made them. */
  let flushing = Promise.resolve();
  let wasMoving = false;
  let lastStopBeat = -Infinity;
  /** Pose events are numbered by step, counted from the clock so that a reloaded page goes on counting upward. */
  let stepNumber = Math.floor(now() / STEP_MS);
  let closed = false;
  /** One engine step: follows the local player's regions, sends its pose if due and flushes the outbox. */
  function step() {
    if (closed) return;
    const pose = options.readLocal();
    blocks.follow(pose.x, pose.y);
    presence.follow(pose.x, pose.y);
    if (loadingWorld) reportWorldLoading();
    if (inWorld) poses.update(pose, ++stepNumber);
    else ++stepNumber;
    // A player who stops somewhere new is recorded there at once (at most once a second),
    // so presence-based checks such as combat range see where players really stand.
    if (wasMoving && !pose.moving && now() - lastStopBeat >= STOP_HEARTBEAT_MS) {
      lastStopBeat = now();
      void presence.heartbeat();
    }
    wasMoving = pose.moving;
    if (options.inCombat()) presence.heartbeatIfOlder(COMBAT_HEARTBEAT_MS);
    const actions = queues.outbox.splice(0);
    if (actions.length === 0) return;
    flushing = flushing.then(async () => {
      for (const action of actions) {
        if (action.kind === 'placeBlock') await blocks.place(action.x, action.y, action.blockType, action.inventory);
        else if (action.kind === 'removeBlock') await blocks.remove(action.x, action.y, action.blockType);
        else await combat.attack(action);
      }
    });
  }
  queues.onStep = step;

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
    leaveOnPageClose() {
      void fetch(`${options.url.replace(/\/$/, '')}/rest/v1/game_players?player_id=eq.${encodeURIComponent(playerId)}`, {
        method: 'DELETE',
        keepalive: true,
        headers: { apikey: options.anonKey, Authorization: `Bearer ${accessToken}` },
      }).catch(() => undefined);
    },
    async close() {
      closed = true;
      if (queues.onStep === step) queues.onStep = undefined;
      online.stop();
      restorable.stop();
      authListener.subscription.unsubscribe();
      // The heartbeat stops and the row goes whatever else fails here (a server already gone).
      try {
        await flushing;
        await Promise.allSettled([blocks.close(), poses.close(), chat.close(), combat.close(), voice.close(), claims.close()]);
      } finally {
        await presence.leave();
      }
    },
  };
}
