/** The chat and push-to-talk services the HUD panels call, sent through the network session. */
import type { Session } from '../../net/session.js';
import { startRecording, type Recording } from '../audio/recorder.js';
import { registerGameServices } from '../state/services.js';
import { showToast } from '../state/toasts.js';

/** Registers chat and voice for `session`; returns their removal. */
export function registerTalkServices(session: Pick<Session, 'sendChat' | 'sendVoice'>): () => void {
  let recording: Promise<Recording> | null = null;
  return registerGameServices({
    async sendChat(text) {
      const refusal = await session.sendChat(text);
      if (refusal) showToast({ title: 'Message Not Sent', description: refusal, variant: 'destructive' });
    },
    async startTalking() {
      recording = startRecording();
      try {
        await recording;
      } catch (error) {
        recording = null;
        throw error;
      }
    },
    async stopTalking() {
      const pending = recording;
      recording = null;
      if (!pending) return;
      const clip = await (await pending).stop();
      if (clip && !(await session.sendVoice(clip))) throw new Error('the server refused the voice clip');
    },
  });
}
