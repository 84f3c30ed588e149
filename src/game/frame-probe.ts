/**
 * Test and benchmark hooks on a mounted game, `window.__tesseraProbe`: per-frame timing of the
 * engine step and of drawing, and a way to hand the engine net events as if they had arrived
 * (simulated players and blocks). The game's own UI never calls these.
 */
import type { NetEvent } from '../../components/network.js';
import type { GameWorld } from '../../components/world.js';

/** Step and draw milliseconds of recorded frames, in preallocated arrays. */
export interface FrameProbe {
  recording: boolean;
  step: Float64Array;
  draw: Float64Array;
  count: number;
}

/** What `window.__tesseraProbe` offers. */
export interface ProbeHandle {
  /** Starts recording the next `frames` animation frames (earlier records are dropped). */
  startFrames(frames: number): void;
  /** Stops recording and returns the step and draw ms of each recorded frame. */
  stopFrames(): { step: number[]; draw: number[] };
  /** Queues `event` in the engine's net inbox; the next step applies it. */
  injectNetEvent(event: NetEvent): void;
}

declare global {
  interface Window {
    __tesseraProbe?: ProbeHandle;
  }
}

/** A probe that records nothing until started. */
export function createFrameProbe(): FrameProbe {
  return { recording: false, step: new Float64Array(0), draw: new Float64Array(0), count: 0 };
}

/** Notes one frame's step and draw time while recording, until the arrays are full. */
export function recordFrame(probe: FrameProbe, stepMs: number, drawMs: number): void {
  if (!probe.recording || probe.count === probe.step.length) return;
  probe.step[probe.count] = stepMs;
  probe.draw[probe.count] = drawMs;
  probe.count++;
}

/** The handle for `probe` on `world`. */
export function createProbeHandle(world: GameWorld, probe: FrameProbe): ProbeHandle {
  return Object.freeze({
    startFrames(frames: number) {
      probe.step = new Float64Array(frames);
      probe.draw = new Float64Array(frames);
      probe.count = 0;
      probe.recording = true;
    },
    stopFrames() {
      probe.recording = false;
      return { step: Array.from(probe.step.subarray(0, probe.count)), draw: Array.from(probe.draw.subarray(0, probe.count)) };
    },
    injectNetEvent(event: NetEvent) {
      world.queues.inbox.push(event);
    },
  });
}
