/**
 * Entering the world: the first heartbeat and the players near by (`joining`), then the view's
 * chunks (`loading-world`, `loaded` of `total`), then `ready` once all of them are shown.
 */
import type { BlockSync } from './blocks/blocks.js';
import type { Interest } from './interest/interest.js';
import type { Presence } from './presence/presence.js';

/** The phases of entering, as the session reports them. */
export type EntryPhase = 'joining' | 'loading-world' | 'ready';

/** How far entering has come. */
export interface WorldEntry {
  /** Whether the first heartbeat is recorded: the private region channels admit players with a presence row. */
  inWorld(): boolean;
  /** Called each step: while the world loads, reports the view's chunks shown so far. */
  step(): void;
}

/** Starts entering at `at` (pixels): moves the interest there, beats once, then loads the players and the view's chunks. */
export function enterWorld(
  interest: Pick<Interest, 'move'>,
  presence: Pick<Presence, 'heartbeat' | 'load'>,
  blocks: Pick<BlockSync, 'viewProgress'>,
  at: { x: number; y: number },
  progress: (phase: EntryPhase, loaded: number, total: number) => void,
): WorldEntry {
  let inWorld = false;
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
    interest.move(at.x, at.y);
    progress('joining', 0, 0);
    await presence.heartbeat();
    inWorld = true;
    // The blocks' region channels admit the player once its presence row exists: from here the view's chunks load.
    loadingWorld = true;
    await presence.load();
  })();
  return {
    inWorld: () => inWorld,
    step() {
      if (loadingWorld) reportWorldLoading();
    },
  };
}
