/**
 * The parts of a network session, made and wired to each other and to the engine's inbox:
 * the interest, the online count, land claims, blocks, presence, live positions, chat, combat,
 * voice and the restorable blocks. The interest (net/interest/interest.ts) is the one place the
 * player's position and centre region are kept: the block sync follows its position, presence
 * and the live positions its 3x3 regions; claims follow the block sync's region channels.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../components/network.js';
import type { SupportWorld } from '../components/support.js';
import { createBlockSync, type BlockSync } from './blocks/blocks.js';
import { createChat, type Chat } from './chat.js';
import { followClaims, type ClaimsFollower } from './claims/claims.js';
import { createCombat, type Combat } from './combat.js';
import { followOnlineCount, type OnlineCount } from './online.js';
import { createInterest, type Interest } from './interest/interest.js';
import { createPoseChannels, type Pose, type PoseChannels } from './poses/poses.js';
import { createPresence, type Presence } from './presence/presence.js';
import { followRestorable, type RestorableFollower } from './restorable.js';
import type { ChatRow, LocalPlayerState } from './rows.js';
import { createVoice, type Listener, type Voice } from './voice.js';

/** What the parts need from the game around them (net/session.ts adds the rest). */
export interface PartsOptions {
  playerId: string;
  playerName(): string;
  /** The local player's presence fields and pose. */
  readLocal(): LocalPlayerState & Pose;
  /** The local world as the engine sees it: which tiles hold a block (for the blocks it may restore). */
  world: Pick<SupportWorld, 'hasBlock'>;
  /** The view's size in pixels, for the chunks to hold (800x600 unless given). */
  view?(): { width: number; height: number };
  listener(): Listener;
  playVoice(audioData: string, volume: number): void;
  notice(title: string, description: string): void;
  onChat(messages: readonly ChatRow[]): void;
  onOnlineCount(count: number): void;
}

/** Every part of a session. */
export interface SessionParts {
  /** Where the player stands: moved once a step, it moves blocks, presence and poses. */
  interest: Interest;
  online: OnlineCount;
  claims: ClaimsFollower;
  blocks: BlockSync;
  presence: Presence;
  poses: PoseChannels;
  chat: Chat;
  combat: Combat;
  voice: Voice;
  restorable: RestorableFollower;
}

/** What the session hands its parts besides its options. */
export interface PartsWiring {
  /** Pushes an event to the engine's inbox. */
  emit(event: NetEvent): void;
  now(): number;
  /** The local player's tile. */
  tile(): { x: number; y: number };
  /** The live block channels came up (true) or all dropped (false). */
  onConnected(connected: boolean): void;
}

/** Makes the parts; each starts reading and listening as it is made. */
export function createSessionParts(db: SupabaseClient, options: PartsOptions, wiring: PartsWiring): SessionParts {
  const { playerId, playerName } = options;
  const { emit, now, tile } = wiring;
  const interest = createInterest();
  const online = followOnlineCount(db, playerId, now, options.onOnlineCount);
  // Claims are heard on the block sync's region channels (net/claims/claims.ts).
  const claims = followClaims(db, { playerId, playerName, tile, emit });
  const blocks = createBlockSync(db, {
    onActivity: online.noteActive,
    playerId,
    playerName,
    emit,
    notice: options.notice,
    view: options.view,
    now,
    onConnected: wiring.onConnected,
    onOwnRemoved: () => restorable.markStale(),
    onClaims: claims.hear,
    onRegionJoined: claims.regionJoined,
  });
  let hitsHeard = 0;
  const presence = createPresence(db, { playerId, readLocal: options.readLocal, emit, now, hitsHeard: () => hitsHeard });
  // The poses follow the interest's regions themselves, from their first update in the world.
  const poses = createPoseChannels(db, { playerId, peers: presence.peers, emit, now, interest });
  interest.onMove(blocks.follow);
  interest.onArea(presence.follow);
  const chat = createChat(db, {
    playerId,
    playerName,
    onMessages: options.onChat,
    onActivity: online.noteActive,
    onArrival: () => emit({ kind: 'chatArrived' }),
  });
  const combat = createCombat(db, {
    playerId,
    playerName,
    emit: (event) => {
      if (event.kind === 'damaged') hitsHeard++;
      emit(event);
    },
  });
  const voice = createVoice(db, {
    playerId,
    playerName,
    listener: options.listener,
    play: (audioData, volume) => {
      emit({ kind: 'voiceStarted', volume });
      options.playVoice(audioData, volume);
    },
  });
  const restorable = followRestorable(db, { playerId, tile, world: options.world, emit });
  return { interest, online, claims, blocks, presence, poses, chat, combat, voice, restorable };
}
