/**
 * The frame loop on requestAnimationFrame: each frame spends the real time elapsed in fixed
 * steps (systems/loop.ts), draws the world interpolated between the last two steps, records the
 * frame's timing for the probe and plays the sounds the steps queued.
 */
import type { GameWorld } from '../../components/world.js';
import { drawWorld, type DrawView } from '../../systems/draw/draw-world.js';
import { advance } from '../../systems/loop.js';
import type { SoundEffects } from '../audio/effects.js';
import { recordFrame, type FrameProbe } from './frame-probe.js';
import { playQueuedSounds } from './sound.js';

/** A running frame loop. */
export interface FrameLoop {
  /** How far (0..1) the last drawn frame was past the last step: input picks tiles in that frame. */
  readonly alpha: number;
  /** Stops the loop. */
  stop(): void;
}

/** Starts drawing `world` into `view` every animation frame. */
export function startFrameLoop(world: GameWorld, view: DrawView, probe: FrameProbe, sounds: SoundEffects | undefined): FrameLoop {
  let alpha = 0;
  let last = performance.now();
  let frame = requestAnimationFrame(function tick(now) {
    const started = performance.now();
    alpha = advance(world, now - last);
    last = now;
    const stepped = performance.now();
    drawWorld(world, view, alpha);
    recordFrame(probe, stepped - started, performance.now() - stepped);
    playQueuedSounds(world, sounds);
    frame = requestAnimationFrame(tick);
  });
  return {
    get alpha() {
      return alpha;
    },
    stop: () => cancelAnimationFrame(frame),
  };
}
