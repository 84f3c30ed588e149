/**
 * State of chat, voice, presence and the minimap. The multiplayer code writes the data atoms;
 * the panels write the toggles (audio, voice online, recording) and read everything.
 */
import { atom } from 'jotai';
import type { ClaimsFollower } from '../../net/claims/claims.js';
import type { ConnectionState } from '../../net/connection.js';
import type { MinimapPlayer } from '../../net/minimap.js';
import type { ChatRow } from '../../net/rows.js';

export type { MinimapPlayer };

/** One row of game_chat_messages. */
export type ChatMessage = ChatRow;

/** Chat history and live messages, oldest first; null while the history is loading. */
export const chatMessagesAtom = atom<ChatMessage[] | null>(null);

/** Distinct players active in the last 5 minutes (docs/game-rules.md §7 online count), self included. */
export const onlineCountAtom = atom(1);

/**
 * The connection as the player is told it (net/connection.ts): `connecting` until the world is
 * first joined, `online`, or `restoring` after a drop until the player is back in the world.
 */
export const connectionAtom = atom<ConnectionState>('connecting');

/** True while the hold-to-talk button is held and a clip is being recorded. */
export const recordingAtom = atom(false);

/** False when the player muted incoming voice clips. */
export const audioEnabledAtom = atom(true);

/** False when the player stopped listening for incoming voice clips. */
export const voiceOnlineAtom = atom(true);

/** Other players on the minimap, excluding the local player. */
export const minimapPlayersAtom = atom<MinimapPlayer[]>([]);

/** The land claims of the running session, for the LAND panel; null while no session runs. */
export const landClaimsAtom = atom<ClaimsFollower | null>(null);
