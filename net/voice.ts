/**
 * Voice clips: base64 webm/opus rows in game_voice_messages, with the sender's tile. A clip
 * is played only for another player within the voice range, when audio is on and voice is
 * online, at the volume the law of hearing gives (volumeAtOffset, components/sounds.ts).
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { TILE_SIZE } from '../protocol/geometry.js';
import { volumeAtOffset } from '../components/sounds.js';
import type { VoiceRow } from './rows.js';

/** The listener's side of the rule for playing a clip. */
export interface Listener {
  id: string;
  /** Position in pixels. */
  x: number;
  y: number;
  audioEnabled: boolean;
  voiceOnline: boolean;
}

/** The volume to play `clip` at for `listener`, or null when it must not play. */
export function clipVolume(clip: Pick<VoiceRow, 'player_id' | 'x' | 'y'>, listener: Listener): number | null {
  if (clip.player_id === listener.id || !listener.audioEnabled || !listener.voiceOnline) return null;
  return volumeAtOffset(clip.x - Math.floor(listener.x / TILE_SIZE), clip.y - Math.floor(listener.y / TILE_SIZE));
}

/** What voice needs from its surroundings. */
export interface VoiceOptions {
  playerId: string;
  playerName(): string;
  listener(): Listener;
  /** Plays a clip (base64 webm/opus) at a volume. */
  play(audioData: string, volume: number): void;
  onStatus?(status: string): void;
}

/** The voice side of the network session. */
export interface Voice {
  /** Sends a clip recorded at pixel position (x, y); false when the server refused it. */
  send(audioData: string, x: number, y: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Subscribes to new clips and returns the sender. */
export function createVoice(db: SupabaseClient, options: VoiceOptions): Voice {
  const channel: RealtimeChannel = db
    .channel('game_voice_messages')
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_voice_messages' }, (change) => {
      const clip = change.new as VoiceRow;
      const volume = clipVolume(clip, options.listener());
      if (volume !== null && clip.audio_data) options.play(clip.audio_data, volume);
    })
    .subscribe((status) => options.onStatus?.(status));

  return {
    async send(audioData, x, y) {
      const { error } = await db.from('game_voice_messages').insert({
        player_id: options.playerId,
        player_name: options.playerName(),
        audio_data: audioData,
        x: Math.floor(x / TILE_SIZE),
        y: Math.floor(y / TILE_SIZE),
      });
      if (error) console.error('voice send failed:', error.code, error.message);
      return !error;
    },
    close: async () => {
      await db.removeChannel(channel);
    },
  };
}
