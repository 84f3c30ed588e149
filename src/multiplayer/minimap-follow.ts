/**
 * The minimap's players while it is open: those with live presence placed from the engine, the
 * rest from their latest blocks, polled every MINIMAP_REFRESH_MS (docs/game-rules.md §7).
 */
import type { GameWorld } from '../../components/world.js';
import { MINIMAP_REFRESH_MS } from '../../net/constants.js';
import type { Session } from '../../net/session.js';
import { createInspector } from '../game/inspect.js';
import { minimapPlayersAtom, type MinimapPlayer } from '../state/social-atoms.js';
import { store } from '../state/store.js';
import { minimapOpenAtom } from '../state/ui-atoms.js';

/** Keeps the minimap's players current while it is open; returns the function that stops. */
export function followMinimap(world: GameWorld, session: Pick<Session, 'minimapFallback'>): () => void {
  const inspector = createInspector(world);
  /** Players with live presence are placed from the engine; the rest from their latest blocks. */
  const refresh = async () => {
    const fromBlocks = await session.minimapFallback();
    const now = Date.now();
    const present: MinimapPlayer[] = inspector.remotePlayers().map(({ id, name, x, y }) => ({ id, name, x, y, seenAt: now }));
    const presentIds = new Set(present.map((p) => p.id));
    store.set(minimapPlayersAtom, [...present, ...fromBlocks.filter((p) => !presentIds.has(p.id))]);
  };
  let timer: ReturnType<typeof setInterval> | undefined;
  const follow = () => {
    clearInterval(timer);
    timer = undefined;
    if (!store.get(minimapOpenAtom)) return;
    void refresh();
    timer = setInterval(() => void refresh(), MINIMAP_REFRESH_MS);
  };
  follow();
  const unsubscribe = store.sub(minimapOpenAtom, follow);
  return () => {
    unsubscribe();
    clearInterval(timer);
  };
}
