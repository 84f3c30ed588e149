/**
 * State of chat, voice, presence and the minimap. The multiplayer code writes the data atoms;
 * the panels write the toggles (audio, voice online, recording) and read everything.
 */
import { atom } from 'jotai';

/** One row of game_chat_messages. */
export interface ChatMessage {
  id: string;
  player_id: string;
  player_name: string;
  message: string;
  created_at: string;
}

/** Chat history and live messages, oldest first; null while the history is loading. */
export const chatMessagesAtom = atom<ChatMessage[] | null>(null);

/** Distinct players active in the last 5 minutes (SPEC.md §7 online count), self included. */
export const onlineCountAtom = atom(1);

/** True while the live connection to the backend is up. */
export const connectedAtom = atom(false);

/** True while the hold-to-talk button is held and a clip is being recorded. */
export const recordingAtom = atom(false);

/** False when the player muted incoming voice clips. */
export const audioEnabledAtom = atom(true);

/** False when the player stopped listening for incoming voice clips. */
export const voiceOnlineAtom = atom(true);

/** Another player's last known position for the minimap. */
export interface MinimapPlayer {
  id: string;
  name: string;
  /** Pixels. */
  x: number;
  /** Pixels. */
  y: number;
  /** When the position was last seen, in ms since the epoch. */
  seenAt: number;
}

/** Other players on the minimap, excluding the local player. */
export const minimapPlayersAtom = atom<MinimapPlayer[]>([]);
