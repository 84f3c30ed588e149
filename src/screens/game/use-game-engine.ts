import { useEffect, type RefObject } from 'react';
import { mountGame } from '../../game/mount.js';
import { createHudSink } from '../../state/hud-sink.js';
import { gameHandleAtom } from '../../state/hud-atoms.js';
import { store } from '../../state/store.js';
import { appearanceAtom, publicKeyAtom, usernameAtom } from '../../state/wallet-atoms.js';

/** Mounts the engine on `canvas` for as long as the game screen is shown. */
export function useGameEngine(canvas: RefObject<HTMLCanvasElement | null>): void {
  useEffect(() => {
    if (!canvas.current) return;
    const hud = createHudSink(store);
    const name = store.get(usernameAtom) ?? 'Anonymous';
    hud.set('name', name);
    const handle = mountGame({
      canvas: canvas.current,
      playerId: store.get(publicKeyAtom) ?? 'unknown',
      name,
      appearance: store.get(appearanceAtom),
      hud,
    });
    store.set(gameHandleAtom, handle);
    return () => {
      store.set(gameHandleAtom, null);
      handle.dispose();
    };
  }, [canvas]);
}
