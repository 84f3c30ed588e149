/**
 * How far entering the world has come, from ENTER WORLD to the first complete view. Whatever
 * does the work feeds it: the game screen (connecting, signing in), the network session
 * (joining, loading the world) and, as it reports them, the loader of the world's chunks
 * (`loaded` of `total`). The HUD shows it until the phase is `ready`.
 */
import { atom } from 'jotai';

/** The steps of entering, in order. */
export type EnteringPhase = 'connecting' | 'signing-in' | 'joining' | 'loading-world' | 'ready' | 'failed';

/** The current step; `loaded` of `total` counts the world's parts while it loads. */
export interface EnteringProgress {
  phase: EnteringPhase;
  loaded: number;
  total: number;
}

/** Entering progress; starts at `connecting` when the game screen mounts. */
export const enteringAtom = atom<EnteringProgress>({ phase: 'connecting', loaded: 0, total: 0 });

const PHASE_SHARE: Record<EnteringPhase, [number, number]> = {
  connecting: [0, 0.15],
  'signing-in': [0.15, 0.3],
  joining: [0.3, 0.45],
  'loading-world': [0.45, 1],
  ready: [1, 1],
  failed: [0, 0],
};

/** The share of the way done, 0..1: each phase covers a slice, loading the world by its parts. */
export function enteringFraction(progress: EnteringProgress): number {
  const [from, to] = PHASE_SHARE[progress.phase];
  const part = progress.total > 0 ? Math.min(1, progress.loaded / progress.total) : 0;
  return from + (to - from) * part;
}

/** What the indicator says for `progress`, in the HUD's capitals. */
export function enteringLabel(progress: EnteringProgress): string {
  switch (progress.phase) {
    case 'connecting':
      return 'CONNECTING...';
    case 'signing-in':
      return 'SIGNING IN...';
    case 'joining':
      return 'JOINING THE WORLD...';
    case 'loading-world':
      return progress.total > 0 ? `LOADING WORLD ${Math.min(progress.loaded, progress.total)} OF ${progress.total}` : 'LOADING WORLD...';
    case 'ready':
      return 'READY';
    case 'failed':
      return 'COULD NOT JOIN THE WORLD';
  }
}
