import { useEffect, type RefObject } from 'react';
import { createSoundEffects } from '../../audio/effects.js';
import { mountGame } from '../../game/mount.js';
import { connectMultiplayer } from '../../multiplayer/connect-multiplayer.js';
import { createHudSink } from '../../state/hud-sink.js';
import { enteringAtom } from '../../state/entering-atoms.js';
import { gameHandleAtom } from '../../state/hud-atoms.js';
import { nameMenuAtom } from '../../state/moderation-atoms.js';
import { soundSettingsAtom } from '../../state/sound-atoms.js';
import { store } from '../../state/store.js';
import { appearanceAtom, publicKeyAtom, signedInAtom, usernameAtom } from '../../state/wallet-atoms.js';

/**
 * Mounts the engine on `canvas` for as long as the game screen is shown (fitted to the screen
 * when `fit`), with its sound effects, and joins the shared world once the wallet's backend
 * session exists.
 */
export function useGameEngine(canvas: RefObject<HTMLCanvasElement | null>, fit: boolean): void {
  useEffect(() => {
    if (!canvas.current) return;
    const hud = createHudSink(store);
    const sounds = createSoundEffects(() => store.get(soundSettingsAtom));
    const name = store.get(usernameAtom) ?? 'Anonymous';
    const playerId = store.get(publicKeyAtom) ?? 'unknown';
    hud.set('name', name);
    const handle = mountGame({
      canvas: canvas.current,
      playerId,
      name,
      appearance: store.get(appearanceAtom),
      hud,
      fit,
      sounds,
      onPlayerTap: (player, x, y) => store.set(nameMenuAtom, { wallet: player.id, name: player.name, x, y }),
    });
    store.set(gameHandleAtom, handle);

    let leave: Promise<(() => Promise<void>) | null> | null = null;
    store.set(enteringAtom, { phase: 'connecting', loaded: 0, total: 0 });
    const join = () => {
      if (leave) return;
      if (playerId === 'unknown') {
        store.set(enteringAtom, { phase: 'ready', loaded: 0, total: 0 });
        return;
      }
      if (!store.get(signedInAtom)) {
        store.set(enteringAtom, { phase: 'signing-in', loaded: 0, total: 0 });
        return;
      }
      store.set(enteringAtom, { phase: 'connecting', loaded: 0, total: 0 });
      leave = connectMultiplayer(handle, { playerId, playerName: () => store.get(usernameAtom) ?? 'Anonymous' }).catch(
        (error: unknown) => {
          console.error('Joining the shared world failed', error);
          store.set(enteringAtom, { phase: 'failed', loaded: 0, total: 0 });
          return null;
        },
      );
    };
    join();
    const unsubscribe = store.sub(signedInAtom, join);

    return () => {
      unsubscribe();
      store.set(gameHandleAtom, null);
      handle.dispose();
      sounds.dispose();
      void leave?.then((stop) => stop?.());
    };
  }, [canvas, fit]);
}
