/**
 * Sound effects synthesised with Web Audio: nothing is downloaded. Each effect is exactly one
 * source node (an oscillator or a burst of noise) shaped by a filter and a gain envelope.
 * No AudioContext exists before the player's first tap or key press (browsers refuse sound
 * before a gesture, and a page should not make any); muted or at volume 0, nothing is made.
 */
import type { BlockFamily, SoundEvent } from '../../components/sound-types.js';

/** The player's sound settings (kept in localStorage, see src/state/sound-atoms.ts). */
export interface SoundSettings {
  /** 0..1. */
  volume: number;
  muted: boolean;
}

/** Pitch of each block family in Hz: low and dull for earth, bright for glass. */
const FAMILY_HZ: Readonly<Record<BlockFamily, number>> = Object.freeze({
  earth: 140,
  wood: 240,
  stone: 320,
  metal: 620,
  gem: 940,
  glass: 1400,
});

/** A tone: oscillator type, start and end frequency (Hz), length (s) and loudness. */
interface Tone {
  wave: OscillatorType;
  from: number;
  to: number;
  seconds: number;
  gain: number;
}

/** A noise burst through a band-pass filter: centre from/to (Hz), length (s) and loudness. */
interface Noise {
  from: number;
  to: number;
  seconds: number;
  gain: number;
}

function shape(event: SoundEvent): Tone | Noise {
  const hz = FAMILY_HZ[event.family ?? 'earth'];
  switch (event.kind) {
    case 'place': return { wave: 'square', from: hz, to: hz * 0.7, seconds: 0.08, gain: 0.25 };
    case 'break': return { from: hz * 2, to: hz, seconds: 0.14, gain: 0.6 };
    case 'step': return { from: 380, to: 220, seconds: 0.05, gain: 0.25 };
    case 'swing': return { from: 900, to: 3200, seconds: 0.15, gain: 0.35 };
    case 'hit': return { wave: 'square', from: 130, to: 55, seconds: 0.12, gain: 0.4 };
    case 'hurt': return { wave: 'sawtooth', from: 320, to: 110, seconds: 0.25, gain: 0.3 };
    case 'defeat': return { wave: 'triangle', from: 440, to: 90, seconds: 0.8, gain: 0.45 };
    case 'chat': return { wave: 'sine', from: 880, to: 1320, seconds: 0.1, gain: 0.25 };
    case 'voice': return { wave: 'sine', from: 520, to: 780, seconds: 0.12, gain: 0.25 };
  }
}

/** The effects player of one page. */
export interface SoundEffects {
  /** Plays `event` unless no gesture happened yet, or the sound is muted or at volume 0. */
  play(event: SoundEvent): void;
  /** Creates the AudioContext; call from inside a tap or key press. */
  unlock(): void;
  dispose(): void;
}

/** An effects player reading the current settings from `settings()` at every effect. */
export function createSoundEffects(settings: () => SoundSettings): SoundEffects {
  let ctx: AudioContext | null = null;
  let noise: AudioBuffer | null = null;

  function noiseBuffer(audio: AudioContext): AudioBuffer {
    if (noise) return noise;
    noise = audio.createBuffer(1, Math.ceil(audio.sampleRate), audio.sampleRate);
    const data = noise.getChannelData(0);
    // A fixed pattern is enough for noise; the engine's random stream is not for the page.
    let seed = 0x12345;
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      data[i] = seed / 0x3fffffff - 1;
    }
    return noise;
  }

  return {
    unlock() {
      if (ctx) return;
      ctx = new AudioContext();
      void ctx.resume();
    },
    play(event) {
      const { volume, muted } = settings();
      const loudness = volume * event.volume;
      if (!ctx || muted || loudness <= 0) return;
      const spec = shape(event);
      const t = ctx.currentTime;
      const end = t + spec.seconds;
      const envelope = ctx.createGain();
      envelope.gain.setValueAtTime(spec.gain * loudness, t);
      envelope.gain.exponentialRampToValueAtTime(0.0001, end);
      envelope.connect(ctx.destination);
      let source: AudioScheduledSourceNode;
      if ('wave' in spec) {
        const osc = ctx.createOscillator();
        osc.type = spec.wave;
        osc.frequency.setValueAtTime(spec.from, t);
        osc.frequency.exponentialRampToValueAtTime(spec.to, end);
        osc.connect(envelope);
        source = osc;
      } else {
        const burst = ctx.createBufferSource();
        burst.buffer = noiseBuffer(ctx);
        const band = ctx.createBiquadFilter();
        band.type = 'bandpass';
        band.frequency.setValueAtTime(spec.from, t);
        band.frequency.exponentialRampToValueAtTime(spec.to, end);
        burst.connect(band).connect(envelope);
        source = burst;
      }
      source.onended = () => envelope.disconnect();
      source.start(t);
      source.stop(end);
    },
    dispose() {
      void ctx?.close();
      ctx = null;
    },
  };
}
